import { CallBudget, WorkScope } from '../call-budget.js';
import { parseArguments } from './schema.js';
import type { AnyToolDefinition, CallerContext, ToolContext } from './tool.js';

/** A call's checked result, and whether it carries platform users' text (see untrusted.ts). */
export interface ToolRun {
  data: Record<string, unknown>;
  fromPlatform: boolean;
}

/**
 * Parses, runs and checks one call; throws ToolError. Meta tools use this to run the tool they call,
 * so both paths share the same validation. The call gets its own budget (the tool's, sized from
 * its arguments, else the default) on a signal of its own that carries it to every request. A call
 * that needs no credentials (a schema-mode answer) never reached the platform, so its answer is
 * the server's own text.
 */
export async function runTool<Deps>(tool: AnyToolDefinition<Deps>, rawArgs: unknown, context: CallerContext<Deps>): Promise<ToolRun> {
  const { record } = context;
  if (record) Object.assign(record, { tool, args: undefined, budget: undefined, data: undefined });
  const args = parseArguments(tool.input, rawArgs);
  const budget = new CallBudget(tool.budget?.(args));
  if (record) Object.assign(record, { args, budget });
  const scope = new WorkScope(context.signal, { budget });
  let data: unknown;
  try {
    const callContext: ToolContext<Deps> = {
      signal: scope.signal,
      budget,
      deps: context.deps,
      progress: context.progress,
      ...(record ? { record } : {}),
      // A getter on the caller's context (a child logger made on first use): read through, not copied.
      get logger() {
        return context.logger;
      },
    };
    data = await tool.handler(args, callContext);
  } finally {
    scope.dispose();
  }
  const checked = tool.output.safeParse(data);
  if (!checked.success) {
    const where = checked.error.issues.slice(0, 3).map((issue) => `${issue.path.join('.') || '(result)'}: ${issue.message}`).join('; ');
    throw new Error(`Output validation error: the result of ${tool.name} does not match its output schema (${where})`);
  }
  if (record?.tool === tool) record.data = data;
  return { data: data as Record<string, unknown>, fromPlatform: tool.hints.openWorldHint && (tool.needsCredentials?.(args) ?? true) };
}
