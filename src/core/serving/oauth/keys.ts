/**
 * The keys of OAuth mode, each derived from the state key (HKDF, one purpose each), so that every
 * replica with the same state key names, seals and signs alike.
 */
import { createHash, createPrivateKey, hkdfSync } from 'node:crypto';
import { stateKeyFrom } from '../../store/sealed.js';
import type { RecordKeys } from './adapter.js';

function derive(key: Uint8Array, purpose: string): Buffer {
  return Buffer.from(hkdfSync('sha256', key, Buffer.alloc(0), `toolservers ${purpose}`, 32));
}

/** The keys oidc-provider's records are named and sealed with (exported for tests that read the store as the server does). */
export function recordKeysFor(stateKey: Uint8Array): RecordKeys {
  return { naming: derive(stateKey, 'oauth record names'), sealing: stateKeyFrom(derive(stateKey, 'oauth records').toString('base64url'), 'the OAuth record key') };
}

/** The key oidc-provider signs its cookies with. */
export function cookieKeyFor(stateKey: Uint8Array): string {
  return derive(stateKey, 'oidc cookies').toString('base64url');
}

/** An Ed25519 signing key derived from the state key, so every replica signs with the same one. */
export function signingJwk(stateKey: Uint8Array): Record<string, unknown> {
  const seed = derive(stateKey, 'oidc signing key');
  const der = Buffer.concat([Buffer.from('302e020100300506032b657004220420', 'hex'), seed]);
  const jwk = createPrivateKey({ key: der, format: 'der', type: 'pkcs8' }).export({ format: 'jwk' }) as Record<string, unknown>;
  return { ...jwk, alg: 'EdDSA', use: 'sig', kid: createHash('sha256').update(String(jwk.x)).digest('base64url').slice(0, 16) };
}
