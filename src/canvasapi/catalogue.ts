/**
 * The CanvasApi tool catalogue: all 139 tools as data, in the contract's order.
 *
 * Where a tool is: each entry lives in catalogue/<its toolset>.ts, under its short name; items,
 * the largest toolset, is two files: items.ts (any item) and items-by-kind.ts (one kind of item
 * each: app cards, cards, documents, embeds, images, shapes, sticky notes, texts, flowchart
 * shapes). From a tool's name, find it in the list below: `boards.CopyCanvasBoard` is
 * CanvasApi.CopyCanvasBoard in catalogue/boards.ts. Adding a tool: its entry in its toolset's
 * file, and its line here at its place in the contract's order (the test checks both).
 *
 * Each entry says which endpoint a tool calls, where every parameter goes (path, query, body
 * field, the whole body, or the tool itself), which statuses mean success, how lists page and
 * which plan is needed. The generic handler (handler.ts) executes any entry; two-mode tools
 * take their body schema from request-schemas.json under the `requestSchema` key.
 *
 * Defaults appear only where the contract states them, and only where they do no harm: the x/y
 * "default 0" of document, embed and image items applies when creating them, never on update
 * (`contractDefaultsNotApplied`, at the end). Parameter names, types and required flags follow the
 * contract exactly; test/canvasapi-catalogue.test.ts checks them against the contract, the
 * endpoint reference and the platform's OpenAPI document.
 *
 * Beyond the base entry (catalogue-types.ts), entries may say what keeps their requests valid
 * (catalogue-types.ts): `whenOmitted` (the only valid value, sent when a parameter the body
 * needs is omitted), `bodyNeeds` (optional parameters without which the platform refuses the
 * request: refused locally) and `answersArray` (the two endpoints that answer a bare array).
 */
import type { CanvasToolEntry } from './catalogue-types.js';
import { boards } from './catalogue/boards.js';
import { compliance } from './catalogue/compliance.js';
import { connectors } from './catalogue/connectors.js';
import { frames } from './catalogue/frames.js';
import { groups } from './catalogue/groups.js';
import { items } from './catalogue/items.js';
import { itemsByKind } from './catalogue/items-by-kind.js';
import { members } from './catalogue/members.js';
import { metrics } from './catalogue/metrics.js';
import { mindmaps } from './catalogue/mindmaps.js';
import { organization } from './catalogue/organization.js';
import { projects } from './catalogue/projects.js';
import { tags } from './catalogue/tags.js';
import { teams } from './catalogue/teams.js';
import { tokens } from './catalogue/tokens.js';
import { webhooks } from './catalogue/webhooks.js';

export const canvasApiCatalogue: readonly CanvasToolEntry[] = [
  tokens.GetAccessTokenInfo,
  compliance.GetRecentAuditLogs,
  compliance.ResetUserSessions,
  tokens.RevokeCanvasAccessToken,
  compliance.GetBoardClassificationSettings,
  compliance.UpdateBoardClassification,
  compliance.GetTeamBoardClassificationSettings,
  compliance.UpdateTeamBoardClassificationSettings,
  compliance.RetrieveBoardClassification,
  compliance.SetBoardClassification,
  compliance.RetrieveEdiscoveryCases,
  compliance.RetrieveCaseInfo,
  compliance.RetrieveLegalHolds,
  compliance.RetrieveLegalHoldInfo,
  compliance.ReviewLegalHoldBoards,
  compliance.CreateBoardExportJob,
  compliance.GetExportJobStatus,
  compliance.RetrieveCanvasExportResults,
  compliance.FetchBoardContentChanges,
  organization.GetOrganizationInfo,
  organization.GetOrganizationMembers,
  organization.GetOrganizationMemberInfo,
  boards.CreateCanvasBoard,
  boards.RetrieveUserBoards,
  boards.CopyCanvasBoard,
  boards.RetrieveBoardInfo,
  boards.UpdateCanvasBoard,
  boards.DeleteCanvasBoard,
  members.ShareCanvasBoard,
  members.GetCanvasBoardMembers,
  members.GetBoardMemberInfo,
  members.UpdateBoardMemberRole,
  members.RemoveBoardMember,
  items.RetrieveBoardItems,
  items.GetBoardItems,
  items.GetBoardItemInfo,
  items.RetrieveBoardItemInfo,
  items.UpdateItemPositionParent,
  items.DeleteBoardItem,
  items.RemoveBoardItem,
  items.AddItemsToCanvasBoard,
  itemsByKind.AddAppCardToBoard,
  itemsByKind.RetrieveAppCardInfo,
  itemsByKind.UpdateCanvasAppCard,
  itemsByKind.DeleteAppCardFromBoard,
  itemsByKind.AddCardToCanvasBoard,
  itemsByKind.GetCardItemInfo,
  itemsByKind.UpdateCardOnBoard,
  itemsByKind.DeleteCardItem,
  connectors.AddConnectorToBoard,
  connectors.GetBoardConnectors,
  connectors.RetrieveBoardConnectorInfo,
  connectors.UpdateConnectorOnBoard,
  connectors.DeleteBoardConnector,
  itemsByKind.AddDocumentToBoardByUrl,
  itemsByKind.RetrieveDocumentItemInfo,
  itemsByKind.UpdateDocumentItemOnBoard,
  itemsByKind.DeleteDocumentItemFromBoard,
  itemsByKind.AddEmbedItemToBoard,
  itemsByKind.GetEmbedItemInfo,
  itemsByKind.UpdateEmbedItemOnBoard,
  itemsByKind.RemoveEmbedItemFromBoard,
  itemsByKind.AddImageToCanvasBoard,
  itemsByKind.GetImageItemInfo,
  itemsByKind.UpdateBoardImage,
  itemsByKind.DeleteBoardImage,
  itemsByKind.AddShapeToCanvasBoard,
  itemsByKind.GetShapeInformation,
  itemsByKind.UpdateBoardShape,
  itemsByKind.DeleteShapeFromCanvasBoard,
  itemsByKind.AddStickyNoteToBoard,
  itemsByKind.GetStickyNoteInfo,
  itemsByKind.UpdateStickyNote,
  itemsByKind.DeleteStickyNote,
  itemsByKind.AddTextToCanvasBoard,
  itemsByKind.GetTextItemInfo,
  itemsByKind.UpdateBoardText,
  itemsByKind.RemoveBoardTextItem,
  itemsByKind.AddFlowchartShapeToBoard,
  itemsByKind.RetrieveShapeInformation,
  itemsByKind.UpdateFlowchartShape,
  itemsByKind.DeleteFlowchartShape,
  frames.AddBoardFrame,
  frames.GetBoardFrameInfo,
  frames.UpdateCanvasBoardFrame,
  frames.DeleteBoardFrame,
  frames.GetItemsWithinFrame,
  mindmaps.GetCanvasMindmapNode,
  mindmaps.DeleteMindmapNode,
  mindmaps.GetMindmapNodes,
  mindmaps.AddMindmapNode,
  groups.CreateGroupOnBoard,
  groups.GetBoardGroups,
  groups.GetItemsByGroupId,
  groups.GetGroupItemsCanvas,
  groups.UngroupItemsOnCanvasBoard,
  groups.UpdateBoardGroup,
  groups.DeleteBoardGroup,
  tags.GetTagsFromItem,
  tags.CreateBoardTag,
  tags.GetBoardTags,
  tags.GetTagInfo,
  tags.UpdateCanvasTag,
  tags.DeleteBoardTag,
  tags.RetrieveItemsByTag,
  tags.AttachTagToItem,
  tags.RemoveTagFromItem,
  webhooks.CreateBoardSubscription,
  webhooks.UpdateBoardWebhookSubscription,
  webhooks.GetUserWebhookSubscriptions,
  webhooks.GetCanvasSubscriptionInfo,
  webhooks.DeleteCanvasWebhookSubscription,
  metrics.GetAppUsageMetrics,
  metrics.RetrieveAppMetrics,
  projects.CreateEnterpriseProject,
  projects.GetTeamProjects,
  projects.GetCanvasProjectInfo,
  projects.UpdateProjectInfo,
  projects.DeleteEnterpriseProject,
  projects.GetProjectSettings,
  projects.UpdateProjectSettings,
  projects.AddCanvasProjectMember,
  projects.GetProjectMembers,
  projects.GetProjectMemberInfo,
  projects.UpdateProjectMemberRole,
  projects.RemoveProjectMember,
  teams.CreateEnterpriseTeam,
  teams.GetEnterpriseTeams,
  teams.GetTeamInfo,
  teams.UpdateEnterpriseTeam,
  teams.DeleteEnterpriseTeam,
  teams.InviteCanvasTeamMember,
  teams.GetEnterpriseTeamMembers,
  teams.RetrieveTeamMemberById,
  teams.UpdateTeamMemberRole,
  teams.RemoveTeamMember,
  teams.GetDefaultTeamSettings,
  teams.GetTeamSettings,
  teams.UpdateTeamSettings,
];

/**
 * Contract defaults this catalogue deliberately does not apply. The contract gives the x and y of
 * document, embed and image items "default 0", which says where a new item goes; applied on an
 * update, it would move an item the caller only renamed to the board centre. So on the update
 * tools an omitted coordinate is not sent and the item stays where it is; passing 0 still moves it
 * to the centre. The listed schemas advertise no default there, and the tool descriptions say so.
 */
export const contractDefaultsNotApplied: Readonly<Record<string, Readonly<Record<string, number>>>> = {
  'CanvasApi.UpdateDocumentItemOnBoard': { x_axis_coordinate_on_board: 0, y_axis_coordinate: 0 },
  'CanvasApi.UpdateEmbedItemOnBoard': { x_axis_coordinate_on_board: 0, y_axis_coordinate: 0 },
  'CanvasApi.UpdateBoardImage': { x_axis_coordinate: 0, y_axis_coordinate_position: 0 },
};
