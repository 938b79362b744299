/**
 * The prepared directory for user matching: each user's folded name, e-mail and name tokens, with
 * every distinct token stored once so that a search scores it once per query word.
 */
import { charMask, germanSpelling, normalizeText, tokenize } from './text.js';

export interface MatchCandidate {
  id: string;
  name: string;
  email: string;
}

/** @internal One user as the scorers read it. */
export interface Entry<T> {
  user: T;
  name: string;
  /** The whole name in German spelling, when it has umlauts. */
  nameDe?: string;
  email: string;
  local: string;
  domain: string;
  /** Distinct-token ids of the name's tokens, in order. */
  tokens: Int32Array;
  /** Ids of the same tokens in German spelling (-1 where it is the same), or undefined. */
  tokensDe?: Int32Array;
  /** fuse.js field norms (1 / sqrt(words)) of name and e-mail. */
  nameNorm: number;
  emailNorm: number;
  /** The characters of name and e-mail (text.ts charMask): the fuzzy component skips fields that lack too many of the query's. */
  nameChars: number;
  emailChars: number;
}

/** Prepared, reusable search structure over a user directory (cache it with the directory). */
export class UserIndex<T extends MatchCandidate> {
  /** @internal */
  readonly entries: Entry<T>[] = [];
  /** @internal Every distinct name token (either spelling), by id. */
  readonly tokens: string[] = [];
  private readonly tokenIds = new Map<string, number>();

  constructor(users: readonly T[]) {
    this.add(users);
  }

  /** Adds users (a directory page as it arrives: the index is ready when the last page is). */
  add(users: readonly T[]): void {
    const idOf = (token: string): number => {
      let id = this.tokenIds.get(token);
      if (id === undefined) {
        id = this.tokens.length;
        this.tokens.push(token);
        this.tokenIds.set(token, id);
      }
      return id;
    };
    for (const user of users) {
      const name = normalizeText(user.name);
      const email = normalizeText(user.email);
      const at = email.lastIndexOf('@');
      const nameTokens = tokenize(name);
      const nameDe = germanSpelling(user.name);
      const deTokens = nameDe !== undefined ? tokenize(nameDe) : undefined;
      const entry: Entry<T> = {
        user,
        name,
        email,
        local: at >= 0 ? email.slice(0, at) : email,
        domain: at >= 0 ? email.slice(at + 1) : '',
        tokens: tokenIds(nameTokens, idOf),
        nameNorm: fieldNorm(name),
        emailNorm: fieldNorm(email),
        nameChars: charMask(name),
        emailChars: charMask(email),
      };
      if (nameDe !== undefined && nameDe !== name && deTokens && deTokens.length === nameTokens.length) {
        entry.nameDe = nameDe;
        entry.tokensDe = tokenIds(deTokens, (t, i) => (t === nameTokens[i] ? -1 : idOf(t)));
      }
      this.entries.push(entry);
    }
  }

  get size(): number {
    return this.entries.length;
  }
}

/** Builds the index once; pass it to rankUsers instead of the user array to skip re-indexing. */
export function createUserIndex<T extends MatchCandidate>(users: readonly T[]): UserIndex<T> {
  return new UserIndex(users);
}

/** Int32Array.from(tokens, idOf) without the iterator protocol it goes through: this runs for every user of a directory. */
function tokenIds(tokens: readonly string[], idOf: (token: string, i: number) => number): Int32Array {
  const ids = new Int32Array(tokens.length);
  for (let i = 0; i < tokens.length; i++) ids[i] = idOf(tokens[i]!, i);
  return ids;
}

/** fuse.js's field norm: 1 / sqrt(number of whitespace-separated words), 3 decimals. */
function fieldNorm(value: string): number {
  // Words counted where one starts, without splitting the value into an array.
  let words = 0;
  for (let i = 0; i < value.length; i++) if (value.charCodeAt(i) !== 32 && (i === 0 || value.charCodeAt(i - 1) === 32)) words++;
  return NORMS[words || 1] ?? Math.round(1000 / Math.sqrt(words)) / 1000;
}

/** fieldNorm's values for the word counts names and e-mails have. */
const NORMS = Array.from({ length: 9 }, (_, words) => (words === 0 ? 1 : Math.round(1000 / Math.sqrt(words)) / 1000));
