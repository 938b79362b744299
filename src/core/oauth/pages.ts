/** The pages a person sees during an MCP client's authorization: plain, accessible HTML, no script. */
import type { ServerResponse } from 'node:http';

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function page(title: string, body: string): string {
  return [
    '<!doctype html>',
    '<html lang="en">',
    '<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>${escapeHtml(title)}</title>`,
    '<style>body{font-family:system-ui,sans-serif;max-width:40em;margin:2em auto;padding:0 1em;line-height:1.5}button{font-size:1em;padding:.4em 1.2em;margin-right:.6em}</style>',
    '</head>',
    '<body><main>',
    `<h1>${escapeHtml(title)}</h1>`,
    body,
    '</main></body></html>',
    '',
  ].join('\n');
}

export function sendPage(res: ServerResponse, status: number, title: string, body: string): void {
  if (res.headersSent) return;
  res.writeHead(status, {
    'content-type': 'text/html; charset=utf-8',
    'cache-control': 'no-store',
    'x-frame-options': 'DENY',
    // No form-action: browsers apply it to the redirect chain after the form, which ends at the client.
    'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'",
    // same-origin, not no-referrer: with no-referrer browsers send "Origin: null" on the form's POST.
    'referrer-policy': 'same-origin',
  });
  res.end(page(title, body));
}

/** An error page: what went wrong and what to do, with nothing secret in it. */
export function sendErrorPage(res: ServerResponse, status: number, title: string, message: string): void {
  sendPage(res, status, title, `<p>${escapeHtml(message)}</p><p>Close this tab and start the connection from your MCP client again.</p>`);
}

export interface ConsentDetails {
  action: string;
  csrf: string;
  clientName: string;
  clientId: string;
  serverName: string;
  resource: string;
  scopes: string[];
  account: string;
}

/** The server's own consent: which client, which server, as whom, which scopes; Allow or Deny. */
export function sendConsentPage(res: ServerResponse, details: ConsentDetails): void {
  const scopes = details.scopes.map((scope) => `<li><code>${escapeHtml(scope)}</code></li>`).join('');
  sendPage(
    res,
    200,
    `Allow ${details.clientName} to use ${details.serverName}?`,
    [
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
