/** Straight to the sandbox's CanvasApi, past the servers: what a test checks a tool's work against. */
import assert from 'node:assert/strict';
import type { RunningSandbox } from '../../src/sandbox/server.js';

type J = any; // eslint-disable-line @typescript-eslint/no-explicit-any

/** One request to the sandbox's CanvasApi; fails the test on an error status. */
export async function platform(sandbox: RunningSandbox, method: string, path: string, body?: unknown): Promise<J> {
  const response = await fetch(`${sandbox.canvasapi.baseUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${sandbox.canvasapi.token}`, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  assert.ok(response.ok, `${method} ${path}: HTTP ${response.status} ${await response.clone().text()}`);
  return response.status === 204 ? undefined : response.json();
}

/** Every item of a board, read straight from the sandbox. */
export async function boardItems(sandbox: RunningSandbox, boardId: string): Promise<J[]> {
  const items: J[] = [];
  let cursor = '';
  do {
    const page = await platform(sandbox, 'GET', `/v2/boards/${boardId}/items?limit=50${cursor ? `&cursor=${cursor}` : ''}`);
    items.push(...page.data);
    cursor = page.cursor ?? '';
  } while (cursor);
  return items;
}
