/**
 * The `webhooks` toolset: board subscriptions.
 * Entries are keyed by the tool's short name, in the contract's order; catalogue.ts lists them all.
 */
import type { CanvasToolEntry } from '../catalogue-types.js';

export const webhooks = {
  CreateBoardSubscription: {
    name: 'CanvasApi.CreateBoardSubscription',
    title: 'Create board webhook',
    description: "Posts a board's changes (not tags, connectors, comments) to an https URL.",
    toolset: 'webhooks',
    effect: 'create',
    method: 'POST',
    path: '/v2-experimental/webhooks/board_subscriptions',
    params: [
      { name: 'board_id', type: 'string', required: false, to: 'body:boardId', description: 'Needed: board to watch' },
      { name: 'webhook_callback_url', type: 'string', required: false, to: 'body:callbackUrl', format: 'https-url', maxLength: 256, description: 'Needed: https URL the platform can reach' },
      { name: 'webhook_status', type: 'string', required: false, to: 'body:status', enum: ['enabled', 'disabled', 'lost_access'], setByPlatform: ['lost_access'], description: 'disabled pauses delivery' },
    ],
    bodyNeeds: ['board_id', 'webhook_callback_url'],
    success: [201],
    plan: 'all',
    scope: 'boards:read',
  },
  UpdateBoardWebhookSubscription: {
    name: 'CanvasApi.UpdateBoardWebhookSubscription',
    title: 'Update board webhook',
    description: "Changes a webhook's URL or status; the rest stays.",
    toolset: 'webhooks',
    effect: 'update',
    method: 'PATCH',
    path: '/v2-experimental/webhooks/board_subscriptions/{subscription_id}',
    params: [
      { name: 'subscription_id', type: 'string', required: true, to: 'path:subscription_id', description: 'The webhook ID' },
      { name: 'webhook_callback_url', type: 'string', required: false, to: 'body:callbackUrl', format: 'https-url', maxLength: 256, description: 'New https URL' },
      { name: 'webhook_status', type: 'string', required: false, to: 'body:status', enum: ['enabled', 'disabled', 'lost_access'], setByPlatform: ['lost_access'], description: 'disabled pauses delivery' },
    ],
    success: [200],
    plan: 'all',
    scope: 'boards:read',
  },
  GetUserWebhookSubscriptions: {
    name: 'CanvasApi.GetUserWebhookSubscriptions',
    title: 'List webhooks',
    description: 'Lists your webhook subscriptions.',
    toolset: 'webhooks',
    effect: 'read',
    method: 'GET',
    path: '/v2-experimental/webhooks/subscriptions',
    params: [
      { name: 'pagination_cursor', type: 'string', required: false, to: 'query:cursor', description: 'From next_page' },
      { name: 'subscription_limit', type: 'string', required: false, to: 'query:limit', format: 'integer-text', min: 1, max: 100, description: 'Page size 1-100' },
    ],
    success: [200],
    pagination: 'cursor',
    plan: 'all',
    scope: 'boards:read',
  },
  GetCanvasSubscriptionInfo: {
    name: 'CanvasApi.GetCanvasSubscriptionInfo',
    title: 'Get webhook',
    description: 'Reads one webhook subscription.',
    toolset: 'webhooks',
    effect: 'read',
    method: 'GET',
    path: '/v2-experimental/webhooks/subscriptions/{subscription_id}',
    params: [
      { name: 'subscription_id', type: 'string', required: true, to: 'path:subscription_id', description: 'The webhook ID' },
    ],
    success: [200],
    plan: 'all',
    scope: 'boards:read',
  },
  DeleteCanvasWebhookSubscription: {
    name: 'CanvasApi.DeleteCanvasWebhookSubscription',
    title: 'Delete webhook',
    description: 'Deletes a webhook subscription.',
    toolset: 'webhooks',
    effect: 'delete',
    method: 'DELETE',
    path: '/v2-experimental/webhooks/subscriptions/{subscription_id}',
    params: [
      { name: 'subscription_id', type: 'string', required: true, to: 'path:subscription_id', description: 'The webhook ID' },
    ],
    success: [204],
    plan: 'all',
    scope: 'boards:read',
  },
} satisfies Record<string, CanvasToolEntry>;
