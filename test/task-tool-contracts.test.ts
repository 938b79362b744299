/**
 * A task tool's logic states its own arguments and answer (so that it imports nothing of its
 * definition, and the definition loads it only on the first call). These must be exactly what the
 * definition's zod schemas produce: a field the schema gives but the logic ignores, or an answer
 * field the output schema does not describe, is a mistake. Checked at compile time (the build of
 * the tests fails on a mismatch); at run time, that every task tool of both servers is checked here.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import type { z } from 'zod';
import { canvasApiTaskTools } from '../src/canvasapi/tasks/index.js';
import { incidentOpsTools } from '../src/incidentops/index.js';
import type { CreateDiagramArgs } from '../src/canvasapi/tasks/diagram-plan.js';
import type { CreateBoardLayoutArgs } from '../src/canvasapi/tasks/board-layout.js';
import type { BulkEditArgs } from '../src/canvasapi/tasks/bulk-edit.js';
import type { bulkEditItemsDefinition } from '../src/canvasapi/tasks/index.js';
import type { createBoardLayoutDefinition, createDiagramDefinition, readBoardDefinition, viewBoardDefinition } from '../src/canvasapi/tasks/index.js';
import type { editDiagramDefinition } from '../src/canvasapi/tasks/index.js';
import type { EditDiagramArgs } from '../src/canvasapi/tasks/edit-diagram.js';
import type { ReadBoardArgs } from '../src/canvasapi/tasks/read-board.js';
import type { ViewBoardArgs } from '../src/canvasapi/tasks/view-board-call.js';
import type { GetIncidentContextArgs, GetIncidentContextResult } from '../src/incidentops/tasks/incident-context.js';
import type { FindSimilarIncidentsArgs, FindSimilarIncidentsResult } from '../src/incidentops/tasks/similar-incidents.js';
import type { WhoIsOnCallArgs, WhoIsOnCallResult } from '../src/incidentops/tasks/who-is-on-call.js';
import type { ListIncidentAlertsArgs, ListIncidentAlertsResult } from '../src/incidentops/tasks/incident-alerts.js';
import type { IncidentStatsArgs, IncidentStatsResult } from '../src/incidentops/tasks/incident-stats.js';
import type listIncidentAlerts from '../src/incidentops/tools/list-incident-alerts.js';
import type incidentStats from '../src/incidentops/tools/incident-stats.js';
import type getIncidentContext from '../src/incidentops/tools/get-incident-context.js';
import type findSimilarIncidents from '../src/incidentops/tools/find-similar-incidents.js';
import type whoIsOnCall from '../src/incidentops/tools/who-is-on-call.js';
import type { ShiftHandoffArgs, ShiftHandoffResult } from '../src/incidentops/tasks/shift-handoff.js';
import type shiftHandoff from '../src/incidentops/tools/shift-handoff.js';

/** Exactly the same type (not merely assignable both ways, which an extra optional field passes). */
type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
/** Intersections and aliases spelled out, so that equal shapes compare equal. */
type Spelled<T> = T extends object ? { [K in keyof T]: Spelled<T[K]> } : T;
type Same<A, B> = Equal<Spelled<A>, Spelled<B>>;
type InputOf<Definition> = Definition extends { input: infer I extends z.ZodType } ? z.output<I> : never;
type OutputOf<Definition> = Definition extends { output: infer O extends z.ZodType } ? z.output<O> : never;

const contracts: {
  [name: string]: true;
} = {
  'IncidentOps.WhoIsOnCall arguments': true satisfies Same<InputOf<typeof whoIsOnCall>, WhoIsOnCallArgs>,
  'IncidentOps.WhoIsOnCall answer': true satisfies Same<OutputOf<typeof whoIsOnCall>, WhoIsOnCallResult>,
  'IncidentOps.FindSimilarIncidents arguments': true satisfies Same<InputOf<typeof findSimilarIncidents>, FindSimilarIncidentsArgs>,
  'IncidentOps.FindSimilarIncidents answer': true satisfies Same<OutputOf<typeof findSimilarIncidents>, FindSimilarIncidentsResult>,
  'IncidentOps.GetIncidentContext arguments': true satisfies Same<InputOf<typeof getIncidentContext>, GetIncidentContextArgs>,
  'IncidentOps.GetIncidentContext answer': true satisfies Same<OutputOf<typeof getIncidentContext>, GetIncidentContextResult>,
  'IncidentOps.ListIncidentAlerts arguments': true satisfies Same<InputOf<typeof listIncidentAlerts>, ListIncidentAlertsArgs>,
  'IncidentOps.ListIncidentAlerts answer': true satisfies Same<OutputOf<typeof listIncidentAlerts>, ListIncidentAlertsResult>,
  'IncidentOps.IncidentStats arguments': true satisfies Same<InputOf<typeof incidentStats>, IncidentStatsArgs>,
  'IncidentOps.IncidentStats answer': true satisfies Same<OutputOf<typeof incidentStats>, IncidentStatsResult>,
  'IncidentOps.ShiftHandoff arguments': true satisfies Same<InputOf<typeof shiftHandoff>, ShiftHandoffArgs>,
  'IncidentOps.ShiftHandoff answer': true satisfies Same<OutputOf<typeof shiftHandoff>, ShiftHandoffResult>,
  'CanvasApi.ReadBoard arguments': true satisfies Same<InputOf<typeof readBoardDefinition>, ReadBoardArgs>,
  'CanvasApi.CreateDiagram arguments': true satisfies Same<InputOf<typeof createDiagramDefinition>, CreateDiagramArgs>,
  'CanvasApi.ViewBoard arguments': true satisfies Same<InputOf<typeof viewBoardDefinition>, ViewBoardArgs>,
  'CanvasApi.CreateBoardLayout arguments': true satisfies Same<InputOf<typeof createBoardLayoutDefinition>, CreateBoardLayoutArgs>,
  'CanvasApi.BulkEditItems arguments': true satisfies Same<InputOf<typeof bulkEditItemsDefinition>, BulkEditArgs>,
  'CanvasApi.EditDiagram arguments': true satisfies Same<InputOf<typeof editDiagramDefinition>, EditDiagramArgs>,
};

it('checks every task tool of both servers', () => {
  const taskTools = [...incidentOpsTools, ...canvasApiTaskTools].filter((tool) => tool.toolset === 'tasks').map((tool) => tool.name);
  const checked = [...new Set(Object.keys(contracts).map((entry) => entry.split(' ')[0]))];
  assert.deepEqual(checked.sort(), taskTools.sort(), 'a task tool needs its line above: its logic states its own arguments (and answer, where the schema says it)');
});

it('catches a difference the handler call alone lets through', () => {
  // An extra optional answer field passes the handler's assignability check but not this one.
  type Wider = FindSimilarIncidentsResult & { extra?: string };
  const caught: false = false satisfies Same<OutputOf<typeof findSimilarIncidents>, Wider>;
  // A field the schema gives that the logic does not state.
  type Narrower = Omit<FindSimilarIncidentsArgs, 'limit'>;
  const missed: false = false satisfies Same<InputOf<typeof findSimilarIncidents>, Narrower>;
  assert.deepEqual([caught, missed], [false, false]);
});
