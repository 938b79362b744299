/**
 * The audit line: one info line per tool call that may change platform data (`writes`, the
 * default when serving) or per call (`all`), saying who called which tool on which IDs, how it
 * ended and whether it changed anything. Never an argument beyond IDs, never an answer, an e-mail
 * address or a secret. Every field is in docs/operations.md, "Audit".
 */
import type { Caller } from '../caller.js';
import type { ToolErrorKind } from '../errors.js';
import type { Logger } from '../logger.js';
import { SettingsError } from '../settings.js';
import type { AnyToolDefinition, CallRecord } from './tool.js';

export const AUDIT_MODES = ['writes', 'all', 'off'] as const;
export type AuditMode = (typeof AUDIT_MODES)[number];
export const AUDIT_ENV = 'TOOLSERVERS_AUDIT';

/** The mode a setting's value names (case-insensitive; blank means `fallback`); a SettingsError for anything else. */
export function resolveAuditMode(value: string | undefined, fallback: AuditMode = 'writes', setting = `--audit (${AUDIT_ENV})`): AuditMode {
  const text = value?.trim().toLowerCase();
  if (!text) return fallback;
  if ((AUDIT_MODES as readonly string[]).includes(text)) return text as AuditMode;
  const shown = text.replace(/[^\x20-\x7e]/g, '?').slice(0, 40);
  throw new SettingsError(`${setting} must be ${AUDIT_MODES.join(', ')} (writes: every call that may change platform data; all: every call), got "${shown}".`);
}

interface Auditor {
  mode: Exclude<AuditMode, 'off'>;
  logger: Logger;
}

let auditor: Auditor | undefined;

/**
 * Writes the audit line of the calls `mode` names, through a child of `logger` at info whatever
 * the logger's own level (a stdio server logs only warnings, and quieting the logs must not lose
 * the record: `off` does that), until the returned function is called. One auditor per process.
 */
export function auditToolCalls(mode: AuditMode, logger: Logger): () => void {
  if (mode === 'off') return () => undefined;
  const line = logger.child({});
  line.level = 'info';
  const mine: Auditor = { mode, logger: line };
  auditor = mine;
  return () => {
    if (auditor === mine) auditor = undefined;
  };
}

/** A record for the call when calls are audited (run-tool.ts fills it), else undefined: nothing is kept. */
export function auditRecord(): CallRecord | undefined {
  return auditor ? {} : undefined;
}

export interface AuditedCall {
  /** The server's id (`canvasapi`). */
  server: string;
  /** The tool called (a meta tool, when it ran another: the record names that one). */
  called: AnyToolDefinition;
  record: CallRecord;
  /** Who called (core/caller.ts). */
  caller: Caller;
  outcome: 'ok' | ToolErrorKind;
  requestId: string;
  ms: number;
}

/** Writes the call's audit line, when the mode covers its tool. Never throws: a call's result never depends on its record. */
export function auditCall(call: AuditedCall): void {
  const current = auditor;
  if (!current) return;
  const tool = call.record.tool ?? call.called;
  const writes = !tool.hints.readOnlyHint;
  if (current.mode === 'writes' && !writes) return;
  try {
    current.logger.info(auditFields(call, tool, writes), 'audit');
  } catch {
    // A logger that fails leaves the call as it was.
  }
}

function auditFields(call: AuditedCall, tool: AnyToolDefinition, writes: boolean): Record<string, unknown> {
  const { record } = call;
  const targets = record.args === undefined ? undefined : targetsOf(tool, record.args, call.outcome === 'ok' ? record.data : undefined);
  return {
    ...userFields(call.caller),
    server: call.server,
    tool: tool.name,
    ...(tool !== call.called ? { via: call.called.name } : {}),
    access: writes ? 'write' : 'read',
    ...(targets ? { targets } : {}),
    outcome: call.outcome,
    ...(writes ? { changed: record.budget?.changed ?? 'no' } : {}),
    request_id: call.requestId,
    ms: Math.round(call.ms),
  };
}

/**
 * Who called, from the caller serving set (core/caller.ts): the signed-in user in OAuth mode
 * (`<platform>:<account id>`), `key` and the network address in key mode, `local` on stdio; and
 * the client's own name (X-Toolservers-Caller) when it gave one.
 */
function userFields({ group, member }: Caller): Record<string, string> {
  const client: Record<string, string> = member !== group ? { client: member } : {};
  if (group.startsWith('user ')) return { user: group.slice('user '.length), ...client };
  if (group.startsWith('address ')) return { user: 'key', address: group.slice('address '.length), ...client };
  return { user: group, ...client };
}

/** IDs are short runs of these; anything else is not an ID and is not written. */
const ID_TEXT = /^[A-Za-z0-9._:=+/~-]{1,200}$/;
const TARGET_KEY = /^[a-z][a-z0-9_]{0,40}$/;
/** Of a list of IDs, the first this many are written, and the count. */
export const MAX_TARGETS_PER_KEY = 50;

/** The tool's targets, each value checked to be an ID: an e-mail address or anything else is replaced by what it is. */
function targetsOf(tool: AnyToolDefinition, args: unknown, answer: unknown): Record<string, unknown> | undefined {
  let given: Record<string, unknown>;
  try {
    given = tool.auditTargets?.(args as never, answer as never) ?? {};
  } catch {
    return undefined;
  }
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(given)) {
    if (!TARGET_KEY.test(key) || value === undefined || value === null) continue;
    if (!Array.isArray(value)) {
      out[key] = idValue(value);
      continue;
    }
    out[key] = value.slice(0, MAX_TARGETS_PER_KEY).map(idValue);
    if (value.length > MAX_TARGETS_PER_KEY) out[`${key}_total`] = value.length;
  }
  return Object.keys(out).length > 0 ? out : undefined;
}

function idValue(value: unknown): string | number {
  if (typeof value === 'number' && Number.isFinite(value)) return value;
  if (typeof value === 'bigint') return value.toString();
  if (typeof value !== 'string') return '[not an ID]';
  if (value.includes('@')) return '[e-mail]';
  return ID_TEXT.test(value) ? value : '[not an ID]';
}
