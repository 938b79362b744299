/**
 * CanvasApi checks its UTC dates and date-times without a date library: utcMillis must agree with
 * luxon (what it replaced) on every string of the accepted shapes, real dates and impossible ones.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { DateTime } from 'luxon';
import { utcMillis } from '../src/canvasapi/params.js';

const pad = (n: number, width: number) => String(n).padStart(width, '0');

test('utcMillis agrees with luxon on dates and UTC date-times, impossible ones included', () => {
  const shape = fc.record({
    // From year 100: luxon reads 24:00 in years 0-99 as the same day's midnight (a bug of its own).
    year: fc.integer({ min: 100, max: 9999 }),
    month: fc.integer({ min: 0, max: 13 }),
    day: fc.integer({ min: 0, max: 32 }),
    time: fc.option(fc.record({ hour: fc.integer({ min: 0, max: 25 }), minute: fc.integer({ min: 0, max: 61 }), second: fc.option(fc.integer({ min: 0, max: 61 })), fraction: fc.option(fc.stringMatching(/^\d{1,9}$/)) })),
  });
  fc.assert(
    fc.property(shape, ({ year, month, day, time }) => {
      let text = `${pad(year, 4)}-${pad(month, 2)}-${pad(day, 2)}`;
      if (time) {
        text += `T${pad(time.hour, 2)}:${pad(time.minute, 2)}`;
        if (time.second !== null) text += `:${pad(time.second, 2)}${time.fraction !== null ? `.${time.fraction}` : ''}`;
        text += 'Z';
      }
      const expected = DateTime.fromISO(text, { zone: 'utc' });
      const actual = utcMillis(text);
      if (!expected.isValid) assert.equal(actual, undefined, `${text} is no real instant`);
      else assert.equal(actual, expected.toMillis(), text);
    }),
    // Hours, minutes and seconds up to 25/61 so that 24:00 and the impossible ones come up often.
    { numRuns: 20_000 },
  );
});

test('utcMillis refuses other shapes', () => {
  for (const text of ['2024-02-30', '2024-13-01', '2024-01-01T10:00:00', '2024-01-01T10:00:00+02:00', '2024-1-1', '', '2024-01-01T24:00:01Z', '2024-01-01T24:30Z']) {
    assert.equal(utcMillis(text), undefined, text);
  }
  assert.equal(utcMillis('2024-02-29T23:59:59.999Z'), Date.UTC(2024, 1, 29, 23, 59, 59, 999));
  assert.equal(utcMillis('2024-12-31T24:00:00.000Z'), Date.UTC(2025, 0, 1), '24:00 is the next midnight, as ISO 8601 (and luxon) read it');
  assert.equal(utcMillis('0001-01-01T24:00Z'), utcMillis('0001-01-02T00:00Z'), 'in every year');
});
