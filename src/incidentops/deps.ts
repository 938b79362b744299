import type { z } from 'zod';
import { defineTool, READ_ONLY_HINTS, type ToolDefinition } from '../core/tools/tool.js';
import type { IncidentOpsApi } from './api.js';
import type { UserDirectory } from './user-directory.js';

/** What every IncidentOps handler can use. */
export interface IncidentOpsDeps {
  api: IncidentOpsApi;
  directory: UserDirectory;
  now: () => Date;
}

type IncidentOpsToolSpec<I extends z.ZodObject, O extends z.ZodType> = Omit<ToolDefinition<I, O, IncidentOpsDeps>, 'hints'>;

/** Every IncidentOps tool only reads: the same four hints on all of them; its `*_id` and `*_ids` arguments name what it read (the audit line with `--audit all`). */
export function incidentOpsTool<I extends z.ZodObject, O extends z.ZodType>(spec: IncidentOpsToolSpec<I, O>): ToolDefinition<I, O, IncidentOpsDeps> {
  return defineTool({ auditTargets: idArguments, ...spec, hints: { ...READ_ONLY_HINTS } });
}

function idArguments(args: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(args).filter(([name]) => /_ids?$/.test(name)));
}
