import assert from 'node:assert/strict';
import { ToolError } from '../../src/core/errors.js';

/** The ToolError a promise rejects with; fails when it resolves or rejects with anything else. */
export async function toolErrorOf(promise: Promise<unknown>): Promise<ToolError> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof ToolError, `a ToolError, got ${String(error)}`);
    return error;
  }
  assert.fail('it resolved');
}
