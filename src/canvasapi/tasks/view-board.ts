/**
 * CanvasApi.ViewBoard (docs/viewboard.md): the area to show and the picture's size, and
 * the off-thread step that draws it (board-render.ts, loaded in a worker on first use only).
 */
import { runOffThread, type OffThreadStep } from '../../core/tools/off-thread.js';
import type { PictureInput, PictureItem } from './board-picture.js';
import type { CompiledModule, RenderedPicture, RenderInput } from './board-render.js';

/** The long side's default, in pixels: what common vision models take without downscaling. */
export const DEFAULT_LONG_SIDE_PX = 1568;
/** Board units per pixel at the finest: a tiny area is not blown up past 2 pixels a unit. */
const MAX_SCALE = 2;
/** Board units around the content, so edges and frame titles stay inside. */
const MARGIN = 40;

export const BOARD_PICTURE: OffThreadStep = {
  module: new URL('./board-render.js', import.meta.url),
  exportName: 'renderBoardPicture',
  what: 'the board picture',
  overLimit: (limit) => [{ parameter: 'max_side', problem: `drawing took more than ${limit}: ask for a smaller picture (max_side), or narrow it (frame_id, frame_title, item_ids or area)` }],
};

/** resvg compiled by the first step; kept for the process's life so later workers reuse its machine code. */
let compiledResvg: CompiledModule | undefined;

/** Draws the picture off the event loop (BOARD_PICTURE), handing each worker the compiled rasteriser once there is one. */
export async function drawPicture(input: PictureInput, signal: AbortSignal): Promise<RenderedPicture> {
  const picture = await runOffThread<RenderInput, RenderedPicture>(BOARD_PICTURE, compiledResvg ? { ...input, resvgModule: compiledResvg } : input, signal);
  if (picture.resvgModule) {
    compiledResvg ??= picture.resvgModule;
    delete picture.resvgModule;
  }
  return picture;
}

export interface PictureFrame {
  area: { x0: number; y0: number; x1: number; y1: number };
  widthPx: number;
  heightPx: number;
  /** Pixels per board unit. */
  scale: number;
}

/** The smallest box around the items, with a margin. */
export function boundsOf(items: readonly PictureItem[]): { x0: number; y0: number; x1: number; y1: number } {
  if (items.length === 0) return { x0: -500, y0: -500, x1: 500, y1: 500 };
  let x0 = Infinity;
  let y0 = Infinity;
  let x1 = -Infinity;
  let y1 = -Infinity;
  for (const item of items) {
    x0 = Math.min(x0, item.x - item.width / 2);
    y0 = Math.min(y0, item.y - item.height / 2);
    x1 = Math.max(x1, item.x + item.width / 2);
    y1 = Math.max(y1, item.y + item.height / 2);
  }
  return { x0: x0 - MARGIN, y0: y0 - MARGIN, x1: x1 + MARGIN, y1: y1 + MARGIN };
}

/** A board area fitted to at most `longSidePx` on its long side: whole pixels, the area widened to match them exactly. */
export function fitPicture(area: { x0: number; y0: number; x1: number; y1: number }, longSidePx = DEFAULT_LONG_SIDE_PX): PictureFrame {
  const w = Math.max(1, area.x1 - area.x0);
  const h = Math.max(1, area.y1 - area.y0);
  const scale = Math.min(MAX_SCALE, longSidePx / Math.max(w, h));
  const widthPx = Math.max(1, Math.round(w * scale));
  const heightPx = Math.max(1, Math.round(h * scale));
  return { area: { x0: area.x0, y0: area.y0, x1: area.x0 + widthPx / scale, y1: area.y0 + heightPx / scale }, widthPx, heightPx, scale };
}
