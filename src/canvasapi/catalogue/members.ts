/**
 * The `members` toolset: who a board is shared with, and their roles.
 * Entries are keyed by the tool's short name, in the contract's order; catalogue.ts lists them all.
 */
import type { CanvasToolEntry } from '../catalogue-types.js';

export const members = {
  ShareCanvasBoard: {
    name: 'CanvasApi.ShareCanvasBoard',
    title: 'Share board',
    description: 'Invites up to 20 e-mails to a board with one role.',
    toolset: 'members',
    effect: 'create',
    method: 'POST',
    path: '/v2/boards/{board_id}/members',
    params: [
      { name: 'board_unique_identifier', type: 'string', required: true, to: 'path:board_id', description: 'The board ID' },
      { name: 'invitee_email_addresses', type: 'string[]', required: true, to: 'body:emails', format: 'email', maxItems: 20, description: '1 to 20 e-mails' },
      { name: 'board_member_role', type: 'string', required: false, to: 'body:role', enum: ['viewer', 'commenter', 'editor', 'coowner', 'owner'], description: 'commenter if omitted; owner acts as coowner' },
      { name: 'invitation_message', type: 'string', required: false, to: 'body:message', description: 'Note in the invitation e-mail' },
    ],
    success: [201],
    plan: 'all',
    scope: 'boards:write',
  },
  GetCanvasBoardMembers: {
    name: 'CanvasApi.GetCanvasBoardMembers',
    title: 'List board members',
    description: "Lists a board's members and roles.",
    toolset: 'members',
    effect: 'read',
    method: 'GET',
    path: '/v2/boards/{board_id}/members',
    params: [
      { name: 'board_id', type: 'string', required: true, to: 'path:board_id', description: 'The board ID' },
      { name: 'number_of_members_to_retrieve', type: 'string', required: false, to: 'query:limit', format: 'integer-text', min: 1, max: 50, description: 'Page size 1-50' },
      { name: 'pagination_offset', type: 'string', required: false, to: 'query:offset', format: 'integer-text', min: 0, description: 'Start index' },
    ],
    success: [200],
    pagination: 'offset',
    plan: 'all',
    scope: 'boards:read',
  },
  GetBoardMemberInfo: {
    name: 'CanvasApi.GetBoardMemberInfo',
    title: 'Get board member',
    description: 'One board member and their role.',
    toolset: 'members',
    effect: 'read',
    method: 'GET',
    path: '/v2/boards/{board_id}/members/{board_member_id}',
    params: [
      { name: 'board_id', type: 'string', required: true, to: 'path:board_id', description: 'The board ID' },
      { name: 'board_member_id', type: 'string', required: true, to: 'path:board_member_id', description: 'The user ID' },
    ],
    success: [200],
    plan: 'all',
    scope: 'boards:read',
  },
  UpdateBoardMemberRole: {
    name: 'CanvasApi.UpdateBoardMemberRole',
    title: 'Update board member role',
    description: "Changes a board member's role.",
    toolset: 'members',
    effect: 'update',
    method: 'PATCH',
    path: '/v2/boards/{board_id}/members/{board_member_id}',
    params: [
      { name: 'board_member_unique_id', type: 'string', required: true, to: 'path:board_member_id', description: 'The user ID' },
      { name: 'board_unique_identifier', type: 'string', required: true, to: 'path:board_id', description: 'The board ID' },
      { name: 'board_member_role', type: 'string', required: false, to: 'body:role', enum: ['viewer', 'commenter', 'editor', 'coowner', 'owner'], description: 'New role; owner acts as coowner' },
    ],
    success: [200],
    plan: 'all',
    scope: 'boards:write',
  },
  RemoveBoardMember: {
    name: 'CanvasApi.RemoveBoardMember',
    title: 'Remove board member',
    description: 'Removes a member from a board.',
    toolset: 'members',
    effect: 'delete',
    method: 'DELETE',
    path: '/v2/boards/{board_id}/members/{board_member_id}',
    params: [
      { name: 'board_member_id', type: 'string', required: true, to: 'path:board_member_id', description: 'The user ID' },
      { name: 'board_unique_id', type: 'string', required: true, to: 'path:board_id', description: 'The board ID' },
    ],
    success: [204],
    plan: 'all',
    scope: 'boards:write',
  },
} satisfies Record<string, CanvasToolEntry>;
