/**
 * ViewBoard's rasteriser: a pure step run in a worker thread (core/tools/off-thread.ts), so resvg
 * (WebAssembly, 2.5 MB), the font and the SVG work never load or run on the main thread.
 * The wasm and DejaVu Sans are read from their packages' files: the same path in tsc's build and
 * in the esbuild bundle; scripts/build-mcpb.mjs ships both packages (it sees `require.resolve`).
 * System fonts are never loaded: the output depends only on the input.
 * Each step runs in a fresh worker: the first compiles the wasm and hands the compiled module back;
 * the caller keeps it and passes it to the next steps (view-board.ts), which then only instantiate
 * it. V8 shares one module's machine code across threads while a reference to it lives, so later
 * workers skip compiling and the lazy per-function compiling too (measured: ~3x faster a call).
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { initWasm, Resvg } from '@resvg/resvg-wasm';
import { boardSvg, type PictureInput } from './board-picture.js';

/**
 * A compiled WebAssembly module, which workers receive by structured clone. Opaque here: the
 * production build's type libraries (ES2023 + node) declare no WebAssembly namespace.
 */
export type CompiledModule = object;

/** The picture, and resvg's compiled module when this step had none to reuse. */
export interface RenderInput extends PictureInput {
  resvgModule?: CompiledModule;
}

export interface RenderedPicture {
  png: Uint8Array;
  width: number;
  height: number;
  /** Compiled here (the input had none): keep it and pass it to later steps. */
  resvgModule?: CompiledModule;
}

/** The global WebAssembly object (Node has it; the production build's type libraries do not declare it). */
const wasmApi = (globalThis as unknown as { WebAssembly: { compile(bytes: Uint8Array): Promise<CompiledModule> } }).WebAssembly;

let ready: Promise<{ font: Uint8Array; compiled?: CompiledModule }> | undefined;

/** Instantiates resvg (compiling it only when not given) and reads the font, once per worker. */
function load(given: CompiledModule | undefined): Promise<{ font: Uint8Array; compiled?: CompiledModule }> {
  return (ready ??= (async () => {
    const require = createRequire(import.meta.url);
    const compiled = given ? undefined : await wasmApi.compile(readFileSync(require.resolve('@resvg/resvg-wasm/index_bg.wasm')));
    await initWasm((given ?? compiled) as Parameters<typeof initWasm>[0]);
    const font = new Uint8Array(readFileSync(require.resolve('dejavu-fonts-ttf/ttf/DejaVuSans.ttf')));
    return compiled ? { font, compiled } : { font };
  })());
}

export async function renderBoardPicture(input: RenderInput): Promise<RenderedPicture> {
  const { font, compiled } = await load(input.resvgModule);
  const resvg = new Resvg(boardSvg(input), { font: { fontBuffers: [font], loadSystemFonts: false, defaultFontFamily: 'DejaVu Sans', sansSerifFamily: 'DejaVu Sans' }, shapeRendering: 2, textRendering: 1 });
  try {
    const image = resvg.render();
    try {
      return { png: image.asPng(), width: image.width, height: image.height, ...(compiled ? { resvgModule: compiled } : {}) };
    } finally {
      image.free();
    }
  } finally {
    resvg.free();
  }
}
