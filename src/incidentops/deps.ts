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

/** Every IncidentOps tool only reads: the same four hints on all of them. */
export function incidentOpsTool<I extends z.ZodObject, O extends z.ZodType>(spec: IncidentOpsToolSpec<I, O>): ToolDefinition<I, O, IncidentOpsDeps> {
  return defineTool({ ...spec, hints: { ...READ_ONLY_HINTS } });
}
