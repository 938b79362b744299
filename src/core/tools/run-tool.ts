import { parseArguments } from './schema.js';
import type { AnyToolDefinition, ToolContext } from './tool.js';

/**
 * Parses, runs and checks one call; throws ToolError. Meta tools use this to run the tool they call,
 * so both paths share the same validation.
 */
export async function runTool<Deps>(tool: AnyToolDefinition<Deps>, rawArgs: unknown, context: ToolContext<Deps>): Promise<Record<string, unknown>> {
  const args = parseArguments(tool.input, rawArgs);
  const data = await tool.handler(args, context);
  const checked = tool.output.safeParse(data);
  if (!checked.success) {
    const where = checked.error.issues.slice(0, 3).map((issue) => `${issue.path.join('.') || '(result)'}: ${issue.message}`).join('; ');
    throw new Error(`Output validation error: the result of ${tool.name} does not match its output schema (${where})`);
  }
  return data as Record<string, unknown>;
}
