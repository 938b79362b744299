/**
 * The `mindmaps` toolset: mind map nodes.
 * Entries are keyed by the tool's short name, in the contract's order; catalogue.ts lists them all.
 */
import type { CanvasToolEntry } from '../catalogue-types.js';

export const mindmaps = {
  GetCanvasMindmapNode: {
    name: 'CanvasApi.GetCanvasMindmapNode',
    title: 'Get mind-map node',
    description: 'Reads one mind-map node.',
    toolset: 'mindmaps',
    effect: 'read',
    method: 'GET',
    path: '/v2-experimental/boards/{board_id}/mindmap_nodes/{item_id}',
    params: [
      { name: 'board_id', type: 'string', required: true, to: 'path:board_id', description: 'The board ID' },
      { name: 'mindmap_node_id', type: 'string', required: true, to: 'path:item_id', description: 'The node ID' },
    ],
    success: [200],
    plan: 'all',
    scope: 'boards:read',
  },
  DeleteMindmapNode: {
    name: 'CanvasApi.DeleteMindmapNode',
    title: 'Delete mind-map node',
    description: 'Deletes a mind-map node and its children.',
    toolset: 'mindmaps',
    effect: 'delete',
    method: 'DELETE',
    path: '/v2-experimental/boards/{board_id}/mindmap_nodes/{item_id}',
    params: [
      { name: 'board_identifier', type: 'string', required: true, to: 'path:board_id', description: 'The board ID' },
      { name: 'mindmap_node_id', type: 'string', required: true, to: 'path:item_id', description: 'The node ID' },
    ],
    success: [204],
    plan: 'all',
    scope: 'boards:write',
  },
  GetMindmapNodes: {
    name: 'CanvasApi.GetMindmapNodes',
    title: 'List mind-map nodes',
    description: "Lists a board's mind-map nodes.",
    toolset: 'mindmaps',
    effect: 'read',
    method: 'GET',
    path: '/v2-experimental/boards/{board_id}/mindmap_nodes',
    params: [
      { name: 'board_identifier', type: 'string', required: true, to: 'path:board_id', description: 'The board ID' },
      { name: 'maximum_results_limit', type: 'string', required: false, to: 'query:limit', format: 'integer-text', description: 'Nodes per page' },
      { name: 'pagination_cursor', type: 'string', required: false, to: 'query:cursor', description: 'From next_page' },
    ],
    success: [200],
    pagination: 'cursor',
    plan: 'all',
    scope: 'boards:read',
  },
  AddMindmapNode: {
    name: 'CanvasApi.AddMindmapNode',
    title: 'Add mind-map node',
    description: 'Adds a mind-map node: a root, or a child of parent_frame_id.',
    toolset: 'mindmaps',
    effect: 'create',
    method: 'POST',
    path: '/v2-experimental/boards/{board_id}/mindmap_nodes',
    params: [
      { name: 'board_id', type: 'string', required: true, to: 'path:board_id', description: 'The board ID' },
      { name: 'mindmap_node_content', type: 'string', required: false, to: 'body:data.nodeView.data.content', description: 'The node text' },
      { name: 'node_type', type: 'string', required: false, to: 'body:data.nodeView.data.type', enum: ['text'], description: 'Only text; sent if omitted' },
      { name: 'node_width_pixels', type: 'number', required: false, to: 'body:geometry.width', description: 'Width in px' },
      { name: 'parent_frame_id', type: 'string', required: false, to: 'body:parent.id', description: 'Parent node; omit for a new map' },
      { name: 'x_coordinate', type: 'number', required: false, default: 0, to: 'body:position.x', description: 'X position' },
      { name: 'y_coordinate', type: 'number', required: false, default: 0, to: 'body:position.y', description: 'Y position' },
    ],
    whenOmitted: { node_type: 'text' },
    success: [201],
    plan: 'all',
    scope: 'boards:write',
  },
} satisfies Record<string, CanvasToolEntry>;
