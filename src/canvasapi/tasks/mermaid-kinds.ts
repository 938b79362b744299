/**
 * Which kind of Mermaid diagram a text is, by its first statement's keyword (after front matter
 * and comments): CreateDiagram's entry. Each kind other than flowcharts has its own drawing; a
 * flowchart (and any text given with nodes, edges or layout, which diagram-plan.ts refuses) goes to
 * create-diagram.ts.
 */
import type { ToolContext } from '../../core/tools/tool.js';
import type { CanvasApiDeps } from '../handler.js';
import type { CreateDiagramArgs } from './diagram-plan.js';
import { mermaidKeyword } from './mermaid-cursor.js';

type Json = Record<string, unknown>;

/** CreateDiagram's call: a Mermaid kind other than a flowchart to its own drawing, the rest to create-diagram.ts. */
export async function createAnyDiagram(args: CreateDiagramArgs, context: ToolContext<CanvasApiDeps>): Promise<Json> {
  const form = args.mermaid === undefined || args.nodes !== undefined || args.edges !== undefined || args.layout !== undefined ? undefined : mermaidKeyword(args.mermaid);
  if (form === 'sequenceDiagram') return (await import('./draw-sequence.js')).drawSequence(args, args.mermaid!, context);
  if (form === 'mindmap') return (await import('./draw-mindmap.js')).drawMindmap(args, args.mermaid!, context);
  return (await import('./create-diagram.js')).createDiagram(args, context);
}
