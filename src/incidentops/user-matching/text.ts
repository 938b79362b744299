/**
 * Folding for user matching: how names, e-mails and queries are compared letter by letter
 * (diacritics, letters NFD does not decompose, German spellings) and split into words.
 */

/** Letters that NFD does not decompose, spelled the way they are usually written without them. */
export const LETTER_FOLDS: Readonly<Record<string, string>> = {
  ø: 'o',
  ł: 'l',
  ı: 'i',
  ß: 'ss',
  đ: 'd',
  ð: 'd',
  æ: 'ae',
  œ: 'oe',
  þ: 'th',
  ħ: 'h',
  ŧ: 't',
  ŋ: 'n',
};
const FOLD_RE = new RegExp(`[${Object.keys(LETTER_FOLDS).join('')}]`, 'g');
const UMLAUT_RE = /[äöü]/;
const UMLAUTS: Readonly<Record<string, string>> = { ä: 'ae', ö: 'oe', ü: 'ue' };

/** ASCII only: nothing for NFD, diacritic stripping or LETTER_FOLDS to change (most names and every e-mail). */
const ASCII = /^[\x00-\x7f]*$/;
/** ASCII whitespace that /\s+/ → ' ' would change: any but a space, or spaces in a row. */
const SPACE_RUN = /[\t\n\v\f\r]|  /;

/** NFD, strip diacritics, lower-case, fold the letters of LETTER_FOLDS, collapse whitespace. */
export function normalizeText(s: string): string {
  // The same result without the Unicode passes, which were most of indexing a directory.
  if (ASCII.test(s)) {
    const lower = s.toLowerCase();
    // Most names have single spaces only: nothing for the whitespace pass to change inside.
    return SPACE_RUN.test(lower) ? lower.replace(/\s+/g, ' ').trim() : lower.trim();
  }
  return s
    .normalize('NFD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase()
    .replace(FOLD_RE, (c) => LETTER_FOLDS[c]!)
    .replace(/\s+/g, ' ')
    .trim();
}

/** The German spelling of a text with ä/ö/ü (ae/oe/ue), folded; undefined when it has none. */
export function germanSpelling(s: string): string | undefined {
  if (ASCII.test(s)) return undefined;
  const lower = s.normalize('NFC').toLowerCase();
  if (!UMLAUT_RE.test(lower)) return undefined;
  return normalizeText(lower.replace(/[äöü]/g, (c) => UMLAUTS[c]!));
}

export function tokenize(normalized: string): string[] {
  return normalized
    .replace(/['’`]/g, '')
    .split(/[\s\-.,]+/)
    .filter((t) => t.length > 0);
}

/**
 * Which characters a text holds, as a 32-bit set (bit `code & 31`): a query character whose bit is
 * missing is in no position of the text, so each such query position costs an edit (fuzzy.ts).
 */
export function charMask(text: string): number {
  let mask = 0;
  for (let i = 0; i < text.length; i++) mask |= 1 << (text.charCodeAt(i) & 31);
  return mask;
}
