/**
 * The `organization` toolset: the organization and its members.
 * Entries are keyed by the tool's short name, in the contract's order; catalogue.ts lists them all.
 */
import type { CanvasToolEntry } from '../catalogue-types.js';

export const organization = {
  GetOrganizationInfo: {
    name: 'CanvasApi.GetOrganizationInfo',
    title: 'Get organization',
    description: 'Organization name, plan, licenses. Enterprise.',
    toolset: 'organization',
    effect: 'read',
    method: 'GET',
    path: '/v2/orgs/{org_id}',
    params: [
      { name: 'organization_id', type: 'string', required: true, to: 'path:org_id', description: 'From GetAccessTokenInfo' },
    ],
    success: [200],
    plan: 'enterprise',
    scope: 'organizations:read',
  },
  GetOrganizationMembers: {
    name: 'CanvasApi.GetOrganizationMembers',
    title: 'List org members',
    description: 'Lists organization members; user_emails overrides filters. Enterprise.',
    toolset: 'organization',
    effect: 'read',
    method: 'GET',
    path: '/v2/orgs/{org_id}/members',
    params: [
      { name: 'organization_id', type: 'string', required: true, to: 'path:org_id', description: 'From GetAccessTokenInfo' },
      { name: 'include_only_active_members', type: 'boolean', required: false, to: 'query:active', description: 'true active, false deactivated' },
      { name: 'license_type', type: 'string', required: false, to: 'query:license', enum: ['full', 'occasional', 'free', 'free_restricted', 'full_trial', 'unknown'], description: 'License filter' },
      { name: 'member_role_filter', type: 'string', required: false, to: 'query:role', enum: ['organization_internal_admin', 'organization_internal_user', 'organization_external_user', 'organization_team_guest_user', 'unknown'], description: 'Role filter' },
      { name: 'pagination_cursor', type: 'string', required: false, to: 'query:cursor', description: 'From next_page' },
      { name: 'result_limit', type: 'integer', required: false, to: 'query:limit', min: 1, max: 100, description: 'Page size 1-100' },
      { name: 'user_emails', type: 'string', required: false, to: 'query:emails', format: 'comma-emails', description: 'Up to 10 comma-separated e-mails' },
    ],
    success: [200],
    answersArray: true,
    pagination: 'cursor',
    plan: 'enterprise',
    scope: 'organizations:read',
  },
  GetOrganizationMemberInfo: {
    name: 'CanvasApi.GetOrganizationMemberInfo',
    title: 'Get org member',
    description: 'Reads one organization member. Enterprise.',
    toolset: 'organization',
    effect: 'read',
    method: 'GET',
    path: '/v2/orgs/{org_id}/members/{member_id}',
    params: [
      { name: 'organization_id', type: 'string', required: true, to: 'path:org_id', description: 'From GetAccessTokenInfo' },
      { name: 'organization_member_id', type: 'string', required: true, to: 'path:member_id', description: 'The user ID' },
    ],
    success: [200],
    plan: 'enterprise',
    scope: 'organizations:read',
  },
} satisfies Record<string, CanvasToolEntry>;
