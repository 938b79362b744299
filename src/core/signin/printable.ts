/**
 * Text that came from elsewhere (an OAuth provider's error description, an account name, a
 * platform message) made safe to print on a terminal: ANSI escape sequences (CSI, OSC, DCS and
 * the other ESC forms, 7-bit and 8-bit), C0 and C1 control characters, DEL, and the Unicode
 * bidirectional overrides and line separators are removed; tabs and line breaks become a space.
 */

// ESC-introduced sequences: CSI (ESC [ ... final), OSC/DCS/SOS/PM/APC (ESC ] P X ^ _ ... BEL or ST), two-character ESC forms.
const ESCAPE_SEQUENCE = /\u001b(?:\[[0-?]*[ -/]*[@-~]?|[\]PX^_][^\u0007\u001b\u009c]*(?:\u0007|\u001b\\|\u009c)?|[ -/]*[0-~]?)/g;
// 8-bit forms: CSI (0x9b) with its parameters, and OSC/DCS/SOS/PM/APC (0x9d 0x90 0x98 0x9e 0x9f) up to their terminator.
const C1_SEQUENCE = /\u009b[0-?]*[ -/]*[@-~]?|[\u009d\u0090\u0098\u009e\u009f][^\u0007\u001b\u009c]*(?:\u0007|\u001b\\|\u009c)?/g;
const LINE_BREAKS = /[\t\n\r\v\f\u2028\u2029\u0085]+/g;
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/** The text without terminal control sequences or control characters, on one line. */
export function printable(text: string): string {
  return text.replace(ESCAPE_SEQUENCE, '').replace(C1_SEQUENCE, '').replace(LINE_BREAKS, ' ').replace(CONTROL, '');
}

/** `printable`, or undefined for undefined. */
export function printableOrUndefined(text: string | undefined): string | undefined {
  return text === undefined ? undefined : printable(text);
}
