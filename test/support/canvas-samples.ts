/** Valid sample values for CanvasApi catalogue parameters, shared by tests that call every tool. */
import { randomUUID } from 'node:crypto';
import type { CanvasParam } from '../../src/canvasapi/catalogue-types.js';

const DAY = 86_400_000;

/**
 * A valid value for a parameter with an enum or a format (the first enum value, an e-mail, a UUID,
 * a date-time window ending now, a URL, integer text); undefined for plain parameters, which each
 * test fills in its own way.
 */
export function sampleByFormat(param: CanvasParam, email = 'ana@example.com'): unknown {
  if (param.enum) return param.enum[0];
  const start = /start|from/i.test(param.name);
  switch (param.format) {
    case 'email':
    case 'comma-emails':
      return param.type === 'string[]' ? [email] : email;
    case 'uuid':
      return randomUUID();
    case 'utc-datetime-ms':
    case 'utc-datetime':
      return new Date(Date.now() + (start ? -DAY : 60_000)).toISOString();
    case 'date':
      return start ? '2026-02-01' : '2026-02-07';
    case 'https-url':
      return 'https://hooks.example.com/sample';
    case 'http-url':
      return 'https://files.example.com/sample.pdf';
    case 'integer-text':
      return String(param.min ?? 10);
    default:
      return undefined;
  }
}
