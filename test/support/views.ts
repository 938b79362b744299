/** Checks shared by the views' tests (MCP Apps). */
import assert from 'node:assert/strict';

/** What makes a view self-contained: a strict CSP and nothing fetched from anywhere. */
export function assertSelfContained(html: string): void {
  assert.match(html, /<meta http-equiv="Content-Security-Policy" content="default-src 'none'/, 'a strict CSP meta');
  assert.ok(!/<script[^>]+\ssrc=/i.test(html), 'no external script');
  assert.ok(!/<link[^>]+\shref=/i.test(html), 'no external style or font');
  assert.ok(!/\b(src|href)=["']?(https?:)?\/\//i.test(html), 'no external src or href');
  const styles = [...html.matchAll(/<style>([\s\S]*?)<\/style>/gi)].map((match) => match[1]).join('\n');
  assert.ok(!/@import|url\(/i.test(styles), 'no css that loads anything');
}
