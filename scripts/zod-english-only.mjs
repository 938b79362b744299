// An esbuild plugin: zod re-exports all of its 60-odd message locales (`z.locales`), so a bundle
// carries half a megabyte of them, compiled at every start. Nothing here or in the SDK picks a
// locale: only the default (English) is kept. Used by bundle.mjs and build-views.mjs.
import path from 'node:path';

export const englishZodLocalesOnly = {
  name: 'english-zod-locales-only',
  setup(build) {
    build.onLoad({ filter: /[\\/]zod[\\/]v4[\\/]locales[\\/]index\.js$/ }, (args) => ({
      contents: "export { default as en } from './en.js';",
      resolveDir: path.dirname(args.path),
      loader: 'js',
    }));
  },
};
