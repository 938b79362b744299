/** Compares two secrets (a state, a CSRF token, a hash) in constant time, whatever their lengths. */
import { createHash, timingSafeEqual } from 'node:crypto';

export function sameSecret(a: string, b: string): boolean {
  // Digests first: timingSafeEqual needs equal lengths, and a length must not leak either.
  const digest = (text: string) => createHash('sha256').update(text, 'utf8').digest();
  return timingSafeEqual(digest(a), digest(b));
}
