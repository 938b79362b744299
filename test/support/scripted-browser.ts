/**
 * A stand-in for the person's browser, for clients that open the authorization URL themselves
 * (mcp-remote opens it through the `open` package, whose bundled xdg-open runs `$BROWSER <url>`
 * when no desktop is present). It follows redirects with a cookie jar, answers the server's
 * consent form, and stops at the first page without one (the client's loopback callback).
 *
 *   node scripted-browser.js <url>
 *   SCRIPTED_BROWSER_DECISION=allow|deny   the consent answer (default allow)
 *   SCRIPTED_BROWSER_LOG=<file>            one JSON line per step: origin + path, status, page heading
 *
 * Standalone (no project imports) so it starts fast in the process the client spawns.
 */
import { appendFileSync } from 'node:fs';

const MAX_STEPS = 20;
const STEP_TIMEOUT_MS = 10_000;

const cookies = new Map<string, string>();
const logFile = process.env.SCRIPTED_BROWSER_LOG;
const decision = process.env.SCRIPTED_BROWSER_DECISION === 'deny' ? 'deny' : 'allow';

function record(entry: Record<string, unknown>): void {
  if (logFile) appendFileSync(logFile, `${JSON.stringify(entry)}\n`);
}

/** Where a step went, without its query (codes and states stay out of the log). */
function place(url: string): string {
  const parsed = new URL(url);
  return `${parsed.origin}${parsed.pathname}`;
}

function decodeEntities(text: string): string {
  return text.replace(/&#(\d+);/g, (_m, code: string) => String.fromCharCode(Number(code))).replace(/&amp;/g, '&');
}

async function request(url: string, form?: Record<string, string>): Promise<Response> {
  const response = await fetch(url, {
    method: form ? 'POST' : 'GET',
    redirect: 'manual',
    signal: AbortSignal.timeout(STEP_TIMEOUT_MS),
    headers: {
      cookie: [...cookies].map(([name, value]) => `${name}=${value}`).join('; '),
      ...(form ? { 'content-type': 'application/x-www-form-urlencoded', origin: new URL(url).origin } : {}),
    },
    ...(form ? { body: new URLSearchParams(form).toString() } : {}),
  });
  for (const line of response.headers.getSetCookie()) {
    const pair = line.split(';')[0] ?? '';
    const eq = pair.indexOf('=');
    if (eq > 0) cookies.set(pair.slice(0, eq).trim(), pair.slice(eq + 1).trim());
  }
  return response;
}

async function browse(start: string): Promise<number> {
  let url = start;
  let response = await request(url);
  for (let step = 0; step < MAX_STEPS; step += 1) {
    if (response.status >= 300 && response.status < 400 && response.headers.has('location')) {
      record({ at: place(url), status: response.status });
      url = new URL(response.headers.get('location') as string, url).href;
      response = await request(url);
      continue;
    }
    const html = await response.text();
    const heading = /<h1>([\s\S]*?)<\/h1>/.exec(html)?.[1];
    record({ at: place(url), status: response.status, ...(heading ? { heading: decodeEntities(heading) } : {}) });
    const form = /<form method="post" action="([^"]+)">/.exec(html);
    const csrf = /name="csrf" value="([^"]+)"/.exec(html);
    if (!form || !csrf) return response.ok ? 0 : 1;
    url = new URL(decodeEntities(form[1] as string), url).href;
    response = await request(url, { csrf: decodeEntities(csrf[1] as string), decision });
  }
  record({ error: 'too many redirects' });
  return 1;
}

const target = process.argv[2];
if (!target) {
  process.stderr.write('usage: scripted-browser <url>\n');
  process.exit(2);
}
browse(target).then(
  (code) => process.exit(code),
  (error: unknown) => {
    record({ error: error instanceof Error ? error.message : String(error) });
    process.exit(1);
  },
);
