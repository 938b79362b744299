/**
 * Adversarial values of 1 MB that a format check must refuse in linear time; shared by
 * test/hostile-input.test.ts (which bounds them generously) and bench/hostile-input.ts (which
 * measures them).
 */
const MB = 1 << 20;

export const ATTACKS: Record<string, string> = {
  'a@ repeated': 'a@'.repeat(MB / 2),
  'a@ then a. repeated (no end)': `a@${'a.'.repeat(MB / 2 - 1)}`,
  'a@a.a then .a repeated, then !': `a@a${'.a'.repeat(MB / 2 - 2)}!`,
  'many addresses run together': 'a@a.a,'.repeat(MB / 6),
  'digits then !': `${'1'.repeat(MB)}!`,
  'date, then digits': `2026-01-31T${'1'.repeat(MB)}`,
  'date-time, then fraction digits': `2026-01-31T09:30:00.${'1'.repeat(MB)}Z!`,
  'dashes': '-'.repeat(MB),
  'x, blanks, x': `x${' '.repeat(MB)}x`,
  'commas': ','.repeat(MB),
  'hex digits': 'a'.repeat(MB),
  'URL with a long host': `https://${'a'.repeat(MB)}`,
  'URL with a long path': `https://a.example/${'%'.repeat(MB)}`,
  'zone-like segments': 'A/'.repeat(MB / 2),
  'bracketed zone': `2026-01-31T09:30:00[${'A/'.repeat(MB / 2)}]`,
};
