/**
 * The `tokens` toolset: what the access token is, and revoking it.
 * Entries are keyed by the tool's short name, in the contract's order; catalogue.ts lists them all.
 */
import type { CanvasToolEntry } from '../catalogue-types.js';

export const tokens = {
  GetAccessTokenInfo: {
    name: 'CanvasApi.GetAccessTokenInfo',
    title: 'Get token info',
    description: 'Your user, team and organization IDs, and token scopes.',
    toolset: 'tokens',
    effect: 'read',
    method: 'GET',
    path: '/v1/oauth-token',
    params: [],
    success: [200],
    plan: 'all',
  },
  RevokeCanvasAccessToken: {
    name: 'CanvasApi.RevokeCanvasAccessToken',
    title: 'Revoke access token',
    description: 'Revokes an access token and its refresh token.',
    toolset: 'tokens',
    effect: 'action',
    method: 'POST',
    path: '/v2/oauth/revoke',
    params: [
      { name: 'client_id', type: 'string', required: true, to: 'body:clientId', description: "Your app's client ID" },
      { name: 'client_secret', type: 'string', required: true, to: 'body:clientSecret', description: "Your app's client secret" },
      { name: 'canvas_access_token', type: 'string', required: true, to: 'body:accessToken', description: 'The token to revoke' },
    ],
    success: [204],
    plan: 'all',
  },
} satisfies Record<string, CanvasToolEntry>;
