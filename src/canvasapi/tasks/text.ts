/** Platform text as an agent reads it: HTML tags dropped, entities decoded, blanks collapsed. */

const NAMED_ENTITIES: Readonly<Record<string, string>> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ' };
/** Tags that end a line of text. */
const BREAKS = /<\s*(?:br|\/p|\/div|\/li|\/h[1-6])\s*\/?>/gi;
/** Linear: a tag is `<`, then anything but `<` and `>`, then `>`. */
const TAG = /<[^<>]*>/g;
const ENTITY = /&(#x[0-9a-f]{1,6}|#\d{1,7}|[a-z]{2,6});/gi;

export function plainText(value: unknown): string {
  if (typeof value !== 'string' || value === '') return '';
  return value
    .replace(BREAKS, ' ')
    .replace(TAG, '')
    .replace(ENTITY, (whole, name: string) => {
      if (name[0] === '#') {
        const code = name[1] === 'x' || name[1] === 'X' ? parseInt(name.slice(2), 16) : parseInt(name.slice(1), 10);
        return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
      }
      return NAMED_ENTITIES[name.toLowerCase()] ?? whole;
    })
    .replace(/\s+/g, ' ')
    .trim();
}
