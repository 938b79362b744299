/**
 * views/time.js, the views' clock: the zone to show (the call's time_zone, else the result's own
 * offset, else UTC), labels in it and axis ticks on its round hours, through a daylight-saving change.
 * Expected instants are worked out by hand from the zones' known offsets.
 */
import assert from 'node:assert/strict';
import path from 'node:path';
import { it } from 'node:test';
import { fileURLToPath, pathToFileURL } from 'node:url';

type Zone = { label: string; offsetAt: (ms: number) => number };
type TimeModule = {
  displayZone: (timeZone: unknown, sampleTime?: string) => Zone;
  shortTime: (ms: number, zone: Zone) => string;
  fullTime: (ms: number, zone: Zone) => string;
  wallClockTicks: (start: number, end: number, step: number, zone: Zone) => number[];
};
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const time = (await import(pathToFileURL(path.join(ROOT, 'views', 'time.js')).href)) as TimeModule;
const HOUR = 3_600_000;
const iso = (ms: number) => new Date(ms).toISOString();

it('shows the asked zone, labelled as asked; else the offset the times carry; else UTC', () => {
  const kolkata = time.displayZone('Asia/Kolkata', '2026-05-06T12:00:00Z');
  assert.equal(kolkata.label, 'Asia/Kolkata');
  assert.equal(kolkata.offsetAt(Date.parse('2026-05-06T12:00:00Z')), 330);
  assert.equal(time.fullTime(Date.parse('2026-05-06T20:00:00Z'), kolkata), '2026-05-07 01:30');
  const fixed = time.displayZone(undefined, '2026-05-06T08:00:00-04:00');
  assert.equal(fixed.label, 'UTC-04:00');
  assert.equal(time.shortTime(Date.parse('2026-05-06T12:00:00Z'), fixed), '05-06 08:00');
  for (const [zone, sample] of [[undefined, '2026-05-06T12:00:00Z'], ['Not/AZone', '2026-05-06T12:00:00Z'], ['utc', undefined], [undefined, '2026-05-06T12:00:00+00:00']] as const) {
    const shown = time.displayZone(zone, sample);
    assert.equal(shown.label, 'UTC', `${zone} ${sample}`);
    assert.equal(time.shortTime(Date.parse('2026-05-06T12:34:00Z'), shown), '05-06 12:34');
  }
});

it('puts ticks on the zone’s round hours, half an hour off UTC included', () => {
  const zone = time.displayZone('Asia/Kolkata');
  const ticks = time.wallClockTicks(Date.parse('2026-05-06T12:00:00Z'), Date.parse('2026-05-08T12:00:00Z'), 6 * HOUR, zone);
  assert.deepEqual(ticks.map(iso), ['2026-05-06T12:30', '2026-05-06T18:30', '2026-05-07T00:30', '2026-05-07T06:30', '2026-05-07T12:30', '2026-05-07T18:30', '2026-05-08T00:30', '2026-05-08T06:30'].map((at) => `${at}:00.000Z`));
  assert.deepEqual(ticks.map((at) => time.shortTime(at, zone).slice(6)), ['18:00', '00:00', '06:00', '12:00', '18:00', '00:00', '06:00', '12:00']);
});

it('keeps ticks on local midnight and noon across a daylight-saving change', () => {
  // New York moves from UTC-5 to UTC-4 at 2026-03-08 02:00 local.
  const zone = time.displayZone('America/New_York');
  const ticks = time.wallClockTicks(Date.parse('2026-03-07T12:00:00Z'), Date.parse('2026-03-09T12:00:00Z'), 12 * HOUR, zone);
  assert.deepEqual(ticks.map(iso), ['2026-03-07T17:00:00.000Z', '2026-03-08T05:00:00.000Z', '2026-03-08T16:00:00.000Z', '2026-03-09T04:00:00.000Z']);
  assert.deepEqual(ticks.map((at) => time.shortTime(at, zone)), ['03-07 12:00', '03-08 00:00', '03-08 12:00', '03-09 00:00']);
});
