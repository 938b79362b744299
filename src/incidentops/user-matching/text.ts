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

/** NFD, strip diacritics, lower-case, fold the letters of LETTER_FOLDS, collapse whitespace. */
export function normalizeText(s: string): string {
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
