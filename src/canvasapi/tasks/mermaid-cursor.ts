/**
 * What every Mermaid reader shares: the cursor it moves along a statement with (indexOf and
 * character tests only, no regular expression that can backtrack, so each reader stays linear in
 * its text), a line's problem, the front matter skipped before the first line, and the kind of
 * diagram by its first word.
 */

/** A diagram's kind: its first statement's first word (front matter and comments skipped), or undefined for an empty text. */
export function mermaidKeyword(text: string): string | undefined {
  let frontmatter = false;
  let start = 0;
  while (start <= text.length) {
    const newline = text.indexOf('\n', start);
    const end = newline < 0 ? text.length : newline;
    const line = text.slice(start, end).trim();
    start = end + 1;
    if (line === '---') frontmatter = !frontmatter;
    else if (!frontmatter && line && !line.startsWith('%%')) return line.slice(0, line.search(/[ \t;]|$/));
  }
  return undefined;
}

/** Problems listed at most, each `line N: ...`. */
export const MAX_PROBLEMS = 10;

/** What is wrong with one line, said as `line N: <message>` by the reader. */
export class LineProblem extends Error {}

/** The `---` block (title, config) before a diagram's first line: skipped, and listed as not drawn. */
export class FrontMatter {
  private opened: number | undefined;
  /** Whether this line belongs to the front matter (the reader skips it). */
  skips(text: string, line: number, headerRead: boolean, ignored: string[]): boolean {
    if (!headerRead && text === '---') {
      if (this.opened !== undefined) ignored.push(`lines ${this.opened}-${line}: the front matter (title, config) is not drawn`);
      this.opened = this.opened === undefined ? line : undefined;
      return true;
    }
    return this.opened !== undefined;
  }
}
export const isIdChar = (c: string | undefined) => c !== undefined && /[\p{L}\p{N}_]/u.test(c);
export const isSpace = (c: string | undefined) => c === ' ' || c === '\t';

export class Cursor {
  at = 0;
  constructor(readonly text: string) {}
  get done(): boolean {
    this.skipSpace();
    return this.at >= this.text.length;
  }
  skipSpace(): void {
    while (isSpace(this.text[this.at])) this.at++;
  }
  startsWith(token: string): boolean {
    return this.text.startsWith(token, this.at);
  }
  rest(): string {
    return this.text.slice(this.at, this.at + 30);
  }
  /** An id: letters, digits, `_`, and `-` between them (`a-b`; `a-->b` is a link). */
  plainId(): string {
    const { text } = this;
    const start = this.at;
    while (this.at < text.length) {
      const c = text[this.at];
      if (isIdChar(c) || (c === '-' && this.at > start && isIdChar(text[this.at + 1]))) this.at++;
      else break;
    }
    return text.slice(start, this.at);
  }
}
