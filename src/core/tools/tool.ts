import type { z } from 'zod';
import type { BudgetLimits, CallBudget } from '../call-budget.js';
import type { Logger } from '../logger.js';

/** The views this project ships (each one a file views/<name>.html in the build; views.ts serves them). */
export const VIEW_NAMES = ['coverage', 'incident', 'board'] as const;
export type ViewName = (typeof VIEW_NAMES)[number];

/** The four behaviour hints every tool states explicitly (none is left to client defaults). */
export interface ToolHints {
  readOnlyHint: boolean;
  destructiveHint: boolean;
  idempotentHint: boolean;
  openWorldHint: boolean;
}

/** What a handler gets besides its arguments. */
export interface ToolContext<Deps> {
  /** Aborted when the MCP client cancels the request or the connection ends. */
  signal: AbortSignal;
  logger: Logger;
  /** Server-specific services (API client, caches), built once per server process. */
  deps: Deps;
  /**
   * Reports progress of a long call (a directory fetch, a multi-page walk). Sent to the client as
   * notifications/progress when its request carried a progress token; otherwise does nothing.
   * `progress` must increase from call to call; `total` is optional.
   */
  progress: (progress: number, total?: number, message?: string) => void;
  /**
   * The call's budget of platform requests, time and kept bytes (the tool's `budget`, else the
   * default). `signal` carries it: the platform client counts every request against it, and
   * walks (pager.ts) stop at it with what they have.
   */
  budget: CallBudget;
  /**
   * What the audit line reports (audit.ts), filled by run-tool.ts: the innermost call wins, so a
   * meta call reports the tool it ran. Absent when nobody audits the call.
   */
  record?: CallRecord;
}

/** The tool a call ran, its checked arguments, its budget and (on success) its answer. */
export interface CallRecord {
  tool?: AnyToolDefinition;
  args?: unknown;
  budget?: CallBudget;
  data?: unknown;
}

/** What a caller of a tool provides; the call's own budget and signal are made by run-tool.ts. */
export type CallerContext<Deps> = Omit<ToolContext<Deps>, 'budget'>;

/** A progress reporter that reports nowhere (direct calls, tests). */
export const NO_PROGRESS: ToolContext<unknown>['progress'] = () => undefined;

/**
 * One tool: everything the registry needs to list it and to call it.
 * `input` must be a strict zod object whose every field has a description;
 * `output` describes `structuredContent` of a successful result.
 */
export interface ToolDefinition<Input extends z.ZodObject = z.ZodObject, Output extends z.ZodType = z.ZodType, Deps = unknown> {
  name: string;
  title: string;
  description: string;
  /** Grouping used for filtering (for example `incidents`, `boards`). */
  toolset: string;
  input: Input;
  output: Output;
  hints: ToolHints;
  /**
   * The JSON Schema to advertise when it must differ from the zod input's own (a parameter the
   * contract types as a string that also accepts a number). Validation always uses `input`.
   */
  inputJsonSchema?: Record<string, unknown>;
  /** What to tell the agent when the result is cut to fit the budget (how to get the rest). */
  truncationHint?: string;
  /**
   * A tool beyond the platform's contract (a whole task in one call): listed only when a choice
   * names it (its toolset, its name, a profile that lists it) or in meta mode, so the default and
   * the `all` profile stay exactly the contract's tools.
   */
  beyondContract?: boolean;
  /**
   * A view for people (MCP Apps) that clients able to show one open with the result: tools/list
   * carries its link, the result is unchanged (core/tools/views.ts). Only beyond the contract.
   */
  view?: ViewName;
  /**
   * The call's budget, sized from its arguments (what it answers); limits left out keep the
   * default (core/call-budget.ts, DEFAULT_BUDGET).
   */
  budget?: (args: z.output<Input>) => Partial<BudgetLimits>;
  /**
   * The IDs a call acts on, for its audit line (docs/operations.md, "Audit"): from its checked
   * arguments (path IDs, never content), and on success from its answer (what it created). Keys
   * are the platform's ID names (`board_id`, `item_id`); values IDs or lists of IDs.
   */
  auditTargets?: (args: z.output<Input>, answer: z.output<Output> | undefined) => Record<string, unknown>;
  /** Whether the tool needs platform credentials (false for purely local modes). Defaults to true. */
  needsCredentials?: (args: z.output<Input>) => boolean;
  handler: (args: z.output<Input>, context: ToolContext<Deps>) => Promise<z.output<Output>>;
}

/** A tool with its types erased, as stored in a registry. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyToolDefinition<Deps = any> = ToolDefinition<z.ZodObject, z.ZodType, Deps>;

/** Identity helper that keeps the handler's argument types inferred from `input`. */
export function defineTool<Input extends z.ZodObject, Output extends z.ZodType, Deps>(
  tool: ToolDefinition<Input, Output, Deps>,
): ToolDefinition<Input, Output, Deps> {
  return tool;
}

export const READ_ONLY_HINTS: ToolHints = Object.freeze({
  readOnlyHint: true,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: true,
});
