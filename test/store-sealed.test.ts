/** Values encrypted at rest with TOOLSERVERS_STATE_KEY (JWE compact, dir + A256GCM). */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import { MemoryStore } from '../src/core/store/memory-store.js';
import { decryptValue, encryptValue, generateStateKey, sealed, SealedValueError, StateKeyError, stateKeyFrom, stateKeyFromEnv } from '../src/core/store/sealed.js';

const keyText = randomBytes(32).toString('base64url');
const key = stateKeyFrom(keyText);
const SECRET = 'platform-refresh-token-0123456789';

describe('state key', () => {
  it('reads a 32-byte base64url key from TOOLSERVERS_STATE_KEY, and nothing when unset', () => {
    assert.equal(stateKeyFromEnv({}), undefined);
    assert.equal(stateKeyFromEnv({ TOOLSERVERS_STATE_KEY: '  ' }), undefined);
    const loaded = stateKeyFromEnv({ TOOLSERVERS_STATE_KEY: keyText });
    assert.deepEqual(loaded?.bytes, key.bytes);
    assert.equal(loaded?.id, key.id);
    assert.equal(stateKeyFrom(generateStateKey()).bytes.length, 32);
  });

  it('refuses a key of the wrong length or alphabet, saying what is expected and never echoing it', () => {
    const short = randomBytes(16).toString('base64url');
    assert.throws(
      () => stateKeyFromEnv({ TOOLSERVERS_STATE_KEY: short }),
      (error: unknown) => error instanceof StateKeyError && /exactly 32 bytes.*encodes 16/.test(error.message) && !error.message.includes(short),
    );
    const standardBase64 = `${randomBytes(32).toString('base64').slice(0, 40)}+/+`;
    assert.throws(
      () => stateKeyFromEnv({ TOOLSERVERS_STATE_KEY: standardBase64 }),
      (error: unknown) => error instanceof StateKeyError && /TOOLSERVERS_STATE_KEY must be base64url/.test(error.message) && !error.message.includes(standardBase64),
    );
  });

  it('names the key only by a fingerprint that does not reveal it', () => {
    assert.match(key.id, /^[A-Za-z0-9_-]{12}$/);
    assert.ok(!keyText.includes(key.id));
  });
});

describe('encryptValue / decryptValue', () => {
  it('round-trips text, with a fresh ciphertext each time that does not contain the text', async () => {
    const first = await encryptValue(key, SECRET);
    const second = await encryptValue(key, SECRET);
    assert.notEqual(first, second);
    assert.equal(first.split('.').length, 5, 'JWE compact serialization');
    assert.ok(!first.includes(SECRET) && !Buffer.from(first.replace(/\./g, ''), 'base64url').toString('latin1').includes(SECRET));
    assert.equal(await decryptValue(key, first), SECRET);
    assert.equal(await decryptValue(key, await encryptValue(key, 'Jørgen 🚀')), 'Jørgen 🚀');
    const header = JSON.parse(Buffer.from(first.split('.')[0]!, 'base64url').toString()) as Record<string, unknown>;
    assert.deepEqual(header, { alg: 'dir', enc: 'A256GCM', kid: key.id });
  });

  it('a value sealed with another key is reported as such, naming both key fingerprints', async () => {
    const other = stateKeyFrom(generateStateKey());
    const text = await encryptValue(other, SECRET);
    await assert.rejects(decryptValue(key, text), (error: unknown) => {
      assert.ok(error instanceof SealedValueError);
      assert.match(error.message, new RegExp(`another TOOLSERVERS_STATE_KEY \\(key ${other.id}; this process has key ${key.id}\\)`));
      assert.ok(!error.message.includes(SECRET));
      return true;
    });
  });

  it('refuses a damaged value and a value sealed for another context', async () => {
    const text = await encryptValue(key, SECRET, 'oauth:platform-token:alice');
    const parts = text.split('.');
    parts[3] = Buffer.from(Buffer.from(parts[3]!, 'base64url').map((byte, i) => (i === 0 ? byte ^ 1 : byte))).toString('base64url');
    await assert.rejects(decryptValue(key, parts.join('.'), 'oauth:platform-token:alice'), /could not be decrypted .*damaged or was sealed with another key/);
    await assert.rejects(decryptValue(key, text, 'oauth:platform-token:mallory'), /sealed for another purpose or key/);
    await assert.rejects(decryptValue(key, text), SealedValueError);
    assert.equal(await decryptValue(key, text, 'oauth:platform-token:alice'), SECRET);
  });
});

describe('sealed(store, key)', () => {
  it('stores only ciphertext, reads the plaintext back, and refuses a value moved to another key', async () => {
    const store = new MemoryStore();
    const tokens = sealed(store, key);
    await tokens.set('oauth:token:alice', SECRET, 60_000);
    const raw = await store.get('oauth:token:alice');
    assert.ok(raw && !raw.includes(SECRET));
    assert.equal(await tokens.get('oauth:token:alice'), SECRET);
    assert.equal(await tokens.get('oauth:token:nobody'), undefined);

    await store.set('oauth:token:mallory', raw);
    await assert.rejects(tokens.get('oauth:token:mallory'), SealedValueError);

    assert.equal(await tokens.setIfAbsent('oauth:code:1', 'code-value'), true);
    assert.equal(await tokens.setIfAbsent('oauth:code:1', 'other'), false);
    assert.equal(await tokens.take('oauth:code:1'), 'code-value');
    assert.equal(await tokens.take('oauth:code:1'), undefined);
    await tokens.delete('oauth:token:alice');
    assert.equal(await tokens.get('oauth:token:alice'), undefined);
    await store.close();
  });
});
