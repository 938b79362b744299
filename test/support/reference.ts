import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';

/**
 * The upstream reference files live beside the repository (../shared/reference) and are
 * never committed. Tests that need them skip with this message when they are absent.
 */
export const referenceDir = process.env.TOOLSERVERS_REFERENCE_DIR ?? path.resolve(process.cwd(), '../shared/reference');

export function referenceFile(name: string): string | undefined {
  const file = path.join(referenceDir, name);
  return existsSync(file) ? file : undefined;
}

/** Parsed JSON reference file, or undefined when absent. */
export function loadReferenceJson<T = unknown>(name: string): T | undefined {
  const file = referenceFile(name);
  return file ? (JSON.parse(readFileSync(file, 'utf8')) as T) : undefined;
}

/** Value for node:test's `skip` option: false when present, else a clear reason. */
export function skipUnlessReference(name: string): false | string {
  return referenceFile(name) ? false : `reference file ${name} not found in ${referenceDir} (set TOOLSERVERS_REFERENCE_DIR)`;
}

/** The tool contracts (seeds) live beside the repository too. */
export const seedsDir = process.env.TOOLSERVERS_SEEDS_DIR ?? path.resolve(process.cwd(), '../shared/seeds');

export function loadSeed(fileName: string): string | undefined {
  const file = path.join(seedsDir, fileName);
  return existsSync(file) ? readFileSync(file, 'utf8') : undefined;
}

export function skipUnlessSeed(fileName: string): false | string {
  return existsSync(path.join(seedsDir, fileName)) ? false : `seed ${fileName} not found in ${seedsDir} (set TOOLSERVERS_SEEDS_DIR)`;
}
