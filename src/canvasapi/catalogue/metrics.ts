/**
 * The `metrics` toolset: an app's usage metrics.
 * Entries are keyed by the tool's short name, in the contract's order; catalogue.ts lists them all.
 */
import type { CanvasToolEntry } from '../catalogue-types.js';

export const metrics = {
  GetAppUsageMetrics: {
    name: 'CanvasApi.GetAppUsageMetrics',
    title: 'Get app usage',
    description: "An app's usage per period. Needs an app-management token.",
    toolset: 'metrics',
    effect: 'read',
    method: 'GET',
    path: '/v2-experimental/apps/{app_id}/metrics',
    params: [
      { name: 'application_id', type: 'string', required: true, to: 'path:app_id', description: 'The app ID' },
      { name: 'end_date', type: 'string', required: true, to: 'query:endDate', format: 'date', description: 'Last day, YYYY-MM-DD' },
      { name: 'start_date_utc', type: 'string', required: true, to: 'query:startDate', format: 'date', description: 'First day, YYYY-MM-DD' },
      { name: 'group_data_by_period', type: 'string', required: false, to: 'query:period', enum: ['DAY', 'WEEK', 'MONTH'], description: 'WEEK if omitted' },
    ],
    success: [200],
    answersArray: true,
    plan: 'app-management-token',
    scope: 'boards:read',
    rule: 'metrics-date-range',
  },
  RetrieveAppMetrics: {
    name: 'CanvasApi.RetrieveAppMetrics',
    title: 'Get app totals',
    description: "An app's all-time usage. Needs an app-management token.",
    toolset: 'metrics',
    effect: 'read',
    method: 'GET',
    path: '/v2-experimental/apps/{app_id}/metrics-total',
    params: [
      { name: 'app_id', type: 'string', required: true, to: 'path:app_id', description: 'The app ID' },
    ],
    success: [200],
    plan: 'app-management-token',
    scope: 'boards:read',
  },
} satisfies Record<string, CanvasToolEntry>;
