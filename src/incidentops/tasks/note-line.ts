/** A note as the task tools show it, one line: `time Author (ID): "text"`, the text cut to `maxChars` (platform text quoted: core/tools/line-text.ts). */
import { quotedText, timeText } from '../../core/tools/line-text.js';
import { named } from '../oncall-levels.js';

export function noteLine(note: Record<string, unknown>, maxChars: number): string {
  return `${timeText(note.created_at)} ${named(note.user) ?? 'unknown author'}: ${quotedText(note.content, maxChars)}`;
}
