/** A note as the task tools show it, one line: `time author: text`, the text cut to `maxChars`. */
import { named } from '../oncall-levels.js';
import { oneLine } from '../shape.js';

export function noteLine(note: Record<string, unknown>, maxChars: number): string {
  return `${String(note.created_at ?? '')} ${named(note.user) ?? 'unknown author'}: ${oneLine(note.content, maxChars)}`;
}
