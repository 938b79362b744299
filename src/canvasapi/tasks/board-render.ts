/**
 * ViewBoard's rasteriser: a pure step run in a worker thread (core/tools/off-thread.ts), so resvg
 * (WebAssembly, 2.5 MB), the font and the SVG work never load or run on the main thread.
 * The wasm and DejaVu Sans are read from their packages' files: the same path in tsc's build and
 * in the esbuild bundle; scripts/build-mcpb.mjs ships both packages (it sees `require.resolve`).
 * System fonts are never loaded: the output depends only on the input.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { initWasm, Resvg } from '@resvg/resvg-wasm';
import { boardSvg, type PictureInput } from './board-picture.js';

export interface RenderedPicture {
  png: Uint8Array;
  width: number;
  height: number;
}

let ready: Promise<Uint8Array> | undefined;

/** Compiles the wasm and reads the font once per worker. */
function load(): Promise<Uint8Array> {
  return (ready ??= (async () => {
    const require = createRequire(import.meta.url);
    await initWasm(readFileSync(require.resolve('@resvg/resvg-wasm/index_bg.wasm')));
    return new Uint8Array(readFileSync(require.resolve('dejavu-fonts-ttf/ttf/DejaVuSans.ttf')));
  })());
}

export async function renderBoardPicture(input: PictureInput): Promise<RenderedPicture> {
  const font = await load();
  const resvg = new Resvg(boardSvg(input), { font: { fontBuffers: [font], loadSystemFonts: false, defaultFontFamily: 'DejaVu Sans', sansSerifFamily: 'DejaVu Sans' }, shapeRendering: 2, textRendering: 1 });
  try {
    const image = resvg.render();
    try {
      return { png: image.asPng(), width: image.width, height: image.height };
    } finally {
      image.free();
    }
  } finally {
    resvg.free();
  }
}
