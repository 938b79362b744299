/** Reading the text a picture's SVG draws for an item, and the lines an HTML text should show: the tests' own, not the builder's. */

/** One drawn line: where its anchor is and what it says (XML entities undone). */
export interface DrawnLine {
  x: number;
  y: number;
  text: string;
}

const unXml = (text: string) => text.replace(/&#(\d+);/g, (_, code: string) => String.fromCodePoint(Number(code)));

/** The item's text element (by its group's data-id): font size, anchor and lines; undefined when it draws no text. */
export function drawnText(svg: string, id: string): { size: number; anchor: string; lines: DrawnLine[] } | undefined {
  const group = svg.split('\n').find((line) => line.startsWith(`<g data-id="${id}"`));
  const text = group?.match(/<text font-size="([\d.]+)" fill="[^"]*" text-anchor="(\w+)">(.*?)<\/text>/);
  if (!text) return undefined;
  const lines = [...text[3]!.matchAll(/<tspan x="(-?[\d.]+)" y="(-?[\d.]+)">(.*?)<\/tspan>/g)].map((m) => ({ x: Number(m[1]), y: Number(m[2]), text: unXml(m[3]!) }));
  return { size: Number(text[1]), anchor: text[2]!, lines };
}

/** The lines an HTML text shows: split at paragraph and line-break ends, tags dropped, entities decoded, blanks collapsed, empty ones left out. */
export function htmlLines(html: string): string[] {
  return html
    .split(/<\/p>|<br\s*\/?>|<\/div>|<\/li>|<\/h[1-6]>/i)
    .map((part) =>
      part
        .replace(/<[^>]*>/g, '')
        .replace(/&#(\d+);/g, (_, code: string) => String.fromCodePoint(Number(code)))
        .replace(/&#x([0-9a-f]+);/gi, (_, code: string) => String.fromCodePoint(parseInt(code, 16)))
        .replace(/&lt;/g, '<')
        .replace(/&gt;/g, '>')
        .replace(/&quot;/g, '"')
        .replace(/&nbsp;/g, ' ')
        .replace(/&amp;/g, '&')
        .replace(/\s+/g, ' ')
        .trim(),
    )
    .filter(Boolean);
}
