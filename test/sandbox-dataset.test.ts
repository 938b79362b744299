/**
 * The sandbox's incident platform data is a pure function of (seed, users, now): the whole dataset
 * is compared byte for byte between two runs and with fingerprints recorded in
 * test/snapshots/sandbox-datasets.json, so a change to the generator that moves a single random
 * draw shows here. After an intended change, UPDATE_SNAPSHOTS=1 records the new fingerprints.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'node:test';
import { generateDataset, type GenerateOptions } from '../src/sandbox/incidentops/data.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const FINGERPRINTS = path.join(ROOT, 'test', 'snapshots', 'sandbox-datasets.json');
const UPDATE = process.env.UPDATE_SNAPSHOTS === '1';

/** Defaults, the smallest account, a large one, and instants on both sides of a daylight-saving change. */
const CASES: Readonly<Record<string, GenerateOptions>> = {
  'default seed and users': { now: Date.UTC(2026, 0, 15, 12) },
  'seed 1, 12 users': { seed: 1, users: 12, now: Date.UTC(2026, 2, 29, 0, 30) },
  'seed 1, 12 users, after the change to summer time': { seed: 1, users: 12, now: Date.UTC(2026, 2, 29, 1, 30) },
  'seed 99, 500 users': { seed: 99, users: 500, now: Date.UTC(2026, 10, 25, 18, 3, 17, 555) },
  'seed 4242, fewer users than the minimum': { seed: 4242, users: 3, now: Date.UTC(2025, 5, 1) },
};

/** The dataset as text, its lookup maps included as [key, value] pairs. */
function datasetText(options: GenerateOptions): string {
  return JSON.stringify(generateDataset(options), (_key, value: unknown) => (value instanceof Map ? [...value] : value));
}

function fingerprint(text: string): { sha256: string; bytes: number } {
  return { sha256: createHash('sha256').update(text).digest('hex'), bytes: Buffer.byteLength(text) };
}

describe('sandbox dataset', () => {
  it('is byte-identical for the same options, and differs with the seed', () => {
    for (const [label, options] of Object.entries(CASES)) assert.equal(datasetText(options), datasetText(options), label);
    const options = CASES['default seed and users']!;
    assert.notEqual(datasetText({ ...options, seed: 2 }), datasetText(options));
  });

  it('matches the recorded fingerprints', () => {
    const actual = Object.fromEntries(Object.entries(CASES).map(([label, options]) => [label, fingerprint(datasetText(options))]));
    if (UPDATE) writeFileSync(FINGERPRINTS, JSON.stringify(actual, null, 2) + '\n');
    assert.ok(existsSync(FINGERPRINTS), `no ${path.relative(ROOT, FINGERPRINTS)} (run with UPDATE_SNAPSHOTS=1 and review)`);
    const recorded = JSON.parse(readFileSync(FINGERPRINTS, 'utf8')) as Record<string, unknown>;
    assert.deepEqual(actual, recorded, 'the generated data changed: if intended, run with UPDATE_SNAPSHOTS=1');
  });
});
