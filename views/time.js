// Times in the views: shown in the zone the call asked for (its `time_zone` argument, an IANA name)
// or else the offset the result's times carry; UTC when neither is given. Intl does the zone
// arithmetic in the browser; a fixed offset (`+05:30`) is plain arithmetic, as not every host's
// Intl takes offsets as zones.

const OFFSET = /(?:Z|([+-])(\d\d):?(\d\d))$/;
const MINUTE = 60_000;

/** The zone to show times in, with its label and its offset (minutes east of UTC) at an instant. */
export function displayZone(timeZone, sampleTime) {
  if (typeof timeZone === 'string' && timeZone) {
    try {
      const parts = new Intl.DateTimeFormat('en-US', { timeZone, hourCycle: 'h23', year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit' });
      const offsetAt = (ms) => {
        const part = Object.fromEntries(parts.formatToParts(ms).map(({ type, value }) => [type, Number(value)]));
        const wall = Date.UTC(part.year, part.month - 1, part.day, part.hour, part.minute, part.second);
        return Math.round((wall - Math.floor(ms / 1000) * 1000) / MINUTE);
      };
      // Labelled as the call named it (Intl may answer with another alias, Asia/Calcutta for Asia/Kolkata).
      return { label: /^utc$/i.test(timeZone) ? 'UTC' : timeZone, offsetAt };
    } catch {
      // Not a zone this browser knows: fall through to the result's own offset.
    }
  }
  const match = typeof sampleTime === 'string' ? OFFSET.exec(sampleTime) : null;
  if (match?.[1]) {
    const minutes = (match[1] === '-' ? -1 : 1) * (Number(match[2]) * 60 + Number(match[3]));
    if (minutes !== 0) return { label: `UTC${match[1]}${match[2]}:${match[3]}`, offsetAt: () => minutes };
  }
  return { label: 'UTC', offsetAt: () => 0 };
}

/** `MM-DD HH:mm` of an instant in the zone. */
export function shortTime(ms, zone) {
  return new Date(ms + zone.offsetAt(ms) * MINUTE).toISOString().slice(5, 16).replace('T', ' ');
}

/** `YYYY-MM-DD HH:mm` of an instant in the zone. */
export function fullTime(ms, zone) {
  return new Date(ms + zone.offsetAt(ms) * MINUTE).toISOString().slice(0, 16).replace('T', ' ');
}

/**
 * Instants in [start, end] on whole multiples of `step` of the zone's wall clock (local midnight,
 * 06:00, … for 6 h), so ticks fall on round local hours even in a zone half an hour off UTC.
 */
export function wallClockTicks(start, end, step, zone) {
  const ticks = [];
  for (let wall = Math.ceil((start + zone.offsetAt(start) * MINUTE) / step) * step; ticks.length < 64; wall += step) {
    // The offset near the instant itself: a daylight-saving change inside the window moves it.
    const at = wall - zone.offsetAt(wall - zone.offsetAt(start) * MINUTE) * MINUTE;
    if (at > end) break;
    if (at >= start) ticks.push(at);
  }
  return ticks;
}
