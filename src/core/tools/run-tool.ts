import { parseArguments } from './schema.js';
import type { AnyToolDefinition, ToolContext } from './tool.js';

/** A call's checked result, and whether it carries platform users' text (see untrusted.ts). */
export interface ToolRun {
  data: Record<string, unknown>;
  fromPlatform: boolean;
}

/**
 * Parses, runs and checks one call; throws ToolError. Meta tools use this to run the tool they call,
 * so both paths share the same validation. A call that needs no credentials (a schema-mode answer)
 * never reached the platform, so its answer is the server's own text.
 */
export async function runTool<Deps>(tool: AnyToolDefinition<Deps>, rawArgs: unknown, context: ToolContext<Deps>): Promise<ToolRun> {
  const args = parseArguments(tool.input, rawArgs);
  const data = await tool.handler(args, context);
  const checked = tool.output.safeParse(data);
  if (!checked.success) {
    const where = checked.error.issues.slice(0, 3).map((issue) => `${issue.path.join('.') || '(result)'}: ${issue.message}`).join('; ');
    throw new Error(`Output validation error: the result of ${tool.name} does not match its output schema (${where})`);
  }
  return { data: data as Record<string, unknown>, fromPlatform: tool.hints.openWorldHint && (tool.needsCredentials?.(args) ?? true) };
}
