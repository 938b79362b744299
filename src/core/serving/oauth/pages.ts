/** The pages a person sees during an MCP client's authorization: plain, accessible HTML, no script. */
import type { ServerResponse } from 'node:http';
import { escapeHtml } from '../../html.js';

/** Headers of every HTML page the server serves: never framed, never cached, no script. */
export const PAGE_HEADERS: Readonly<Record<string, string>> = {
  'content-type': 'text/html; charset=utf-8',
  'cache-control': 'no-store',
  'x-frame-options': 'DENY',
  // No form-action: browsers apply it to the redirect chain after the form, which ends at the client.
  'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'",
  // same-origin, not no-referrer: with no-referrer browsers send "Origin: null" on the form's POST.
  'referrer-policy': 'same-origin',
};

export function renderPage(title: string, body: string): string {
  return [
    '<!doctype html>',
    '<html lang="en">',
    '<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>${escapeHtml(title)}</title>`,
    '<style>body{font-family:system-ui,sans-serif;max-width:40em;margin:2em auto;padding:0 1em;line-height:1.5}button{font-size:1em;padding:.4em 1.2em;margin-right:.6em}.warning,.destination{border-left:.3em solid #b35900;padding:.3em .8em;background:#fff4e5}</style>',
    '</head>',
    '<body><main>',
    `<h1>${escapeHtml(title)}</h1>`,
    body,
    '</main></body></html>',
    '',
  ].join('\n');
}

export function sendPage(res: ServerResponse, status: number, title: string, body: string, headers: Record<string, string | string[]> = {}): void {
  if (res.headersSent) return;
  res.writeHead(status, { ...PAGE_HEADERS, ...headers });
  res.end(renderPage(title, body));
}

/** An error page: what went wrong and what to do, with nothing secret in it. */
export function sendErrorPage(res: ServerResponse, status: number, title: string, message: string, headers: Record<string, string | string[]> = {}): void {
  sendPage(res, status, title, errorBody(message), headers);
}

export function errorBody(message: string): string {
  return `<p>${escapeHtml(message)}</p><p>Close this tab and start the connection from your MCP client again.</p>`;
}

export interface ConsentDetails {
  action: string;
  csrf: string;
  clientName: string;
  clientId: string;
  /** Where the authorization code goes once the person allows. */
  redirectUri: string;
  /** The host serving the client's metadata document; undefined for a client that registered itself. */
  documentHost?: string;
  serverName: string;
  resource: string;
  scopes: string[];
  account: string;
}

const LOOPBACK_HOST = /^(localhost|127(\.\d{1,3}){3}|\[::1\])$/;

/** The redirect URI as a person should judge it: the host, with the scheme when it is not https. */
export function describeRedirect(uri: string): { where: string; note: string } {
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return { where: uri, note: 'an address this server cannot read' };
  }
  if (url.protocol === 'https:') return { where: url.host, note: '' };
  if (url.protocol === 'http:') {
    return LOOPBACK_HOST.test(url.hostname) ? { where: `http://${url.host}`, note: 'an application on this computer' } : { where: `http://${url.host}`, note: 'not encrypted' };
  }
  return { where: url.host ? `${url.protocol}//${url.host}` : url.protocol, note: 'an application on this device that handles these links' };
}

/** The server's own consent: which client, where its code goes, which server, as whom, which scopes; Allow or Deny. */
export function sendConsentPage(res: ServerResponse, details: ConsentDetails): void {
  const scopes = details.scopes.map((scope) => `<li><code>${escapeHtml(scope)}</code></li>`).join('');
  const redirect = describeRedirect(details.redirectUri);
  // Names given at open registration are self-asserted: "Claude Desktop" may be anyone.
  const identity = details.documentHost
    ? `<p>The application identifies itself with a metadata document published at <strong>${escapeHtml(details.documentHost)}</strong>.</p>`
    : `<p class="warning"><strong>Unverified application.</strong> &quot;${escapeHtml(details.clientName)}&quot; is the name it registered itself with; this server has not checked who made it. Allow only if you started this connection yourself just now.</p>`;
  sendPage(
    res,
    200,
    `Allow ${details.clientName} to use ${details.serverName}?`,
    [
      identity,
      `<p class="destination">If you allow, access goes to <strong><code>${escapeHtml(redirect.where)}</code></strong>${redirect.note ? ` (${escapeHtml(redirect.note)})` : ''}.</p>`,
      `<p>You are signed in to ${escapeHtml(details.serverName)} as <strong>${escapeHtml(details.account)}</strong>.</p>`,
      `<p>The application <strong>${escapeHtml(details.clientName)}</strong>${details.clientName !== details.clientId ? ` (client ID <code>${escapeHtml(details.clientId)}</code>)` : ''} asks to call the ${escapeHtml(details.serverName)} tools at <code>${escapeHtml(details.resource)}</code> as you.</p>`,
      '<h2>Permissions</h2>',
      `<ul>${scopes}</ul>`,
      `<p>It receives a token for this server only; your ${escapeHtml(details.serverName)} sign-in stays on the server.</p>`,
      `<form method="post" action="${escapeHtml(details.action)}">`,
      `<input type="hidden" name="csrf" value="${escapeHtml(details.csrf)}">`,
      '<button type="submit" name="decision" value="allow">Allow</button>',
      '<button type="submit" name="decision" value="deny">Deny</button>',
      '</form>',
    ].join('\n'),
  );
}
