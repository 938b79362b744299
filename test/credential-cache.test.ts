/**
 * The stored sign-in is kept in memory: the file is read again only when it changed (its stamp:
 * inode, size, times), after a 401, or when renewal is due. Another process's `login` or
 * renewal is picked up by the next call; an unchanged file is not read at all.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtemp, rm, writeFile, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { CredentialSource } from '../src/core/signin/credential-source.js';
import { FileTokenStore, type StoredCredential } from '../src/core/signin/token-store.js';

const STORE_MODULE = fileURLToPath(new URL('../src/core/signin/token-store.js', import.meta.url));

class CountingStore extends FileTokenStore {
  reads = 0;
  override get(platform: string): Promise<StoredCredential | undefined> {
    this.reads += 1;
    return super.get(platform);
  }
}

const entry = (accessToken: string, extra: Partial<StoredCredential> = {}): StoredCredential => ({
  platform: 'incidentops',
  accessToken,
  tokenType: 'bearer',
  obtainedAt: Date.now(),
  ...extra,
});

let root: string;
before(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'toolservers-cred-cache-'));
});
after(async () => {
  await rm(root, { recursive: true, force: true });
});

async function setup(name: string): Promise<{ file: string; store: CountingStore; source: CredentialSource }> {
  const file = path.join(root, name, 'credentials.json');
  await new FileTokenStore(file).set(entry('token-one-aaaaaaaa'));
  const store = new CountingStore(file);
  return { file, store, source: new CredentialSource({ platform: 'incidentops', store }) };
}

describe('stored sign-in kept in memory', () => {
  it('an unchanged file is read once, not on every call', async () => {
    const { store, source } = await setup('unchanged');
    for (let i = 0; i < 25; i++) assert.equal(await source.authorization(), 'Bearer token-one-aaaaaaaa');
    assert.equal(store.reads, 1);
  });

  it("another process's login (an atomic replace of the file) is used by the next call", async () => {
    const { file, store, source } = await setup('other-process');
    assert.equal(await source.authorization(), 'Bearer token-one-aaaaaaaa');
    const script = `import { FileTokenStore } from ${JSON.stringify(STORE_MODULE)};
      await new FileTokenStore(${JSON.stringify(file)}).set({ platform: 'incidentops', accessToken: 'token-two-bbbbbbbb', tokenType: 'bearer', obtainedAt: Date.now() });`;
    const child = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
    assert.equal(child.status, 0, child.stderr);
    assert.equal(await source.authorization(), 'Bearer token-two-bbbbbbbb');
    assert.equal(store.reads, 2);
    assert.equal(await source.authorization(), 'Bearer token-two-bbbbbbbb');
    assert.equal(store.reads, 2, 'and then kept again');
  });

  it('a rewrite in place with a token of the same length is picked up too', async () => {
    const { file, source } = await setup('in-place');
    assert.equal(await source.authorization(), 'Bearer token-one-aaaaaaaa');
    const text = await readFile(file, 'utf8');
    await new Promise((resolve) => setTimeout(resolve, 5));
    await writeFile(file, text.replace('token-one-aaaaaaaa', 'token-one-cccccccc'), { mode: 0o600 });
    assert.equal(await source.authorization(), 'Bearer token-one-cccccccc');
  });

  it('a sign-in that appears after "nobody signed in" is picked up; no file means no read either', async () => {
    const file = path.join(root, 'late', 'credentials.json');
    const store = new CountingStore(file);
    const source = new CredentialSource({ platform: 'incidentops', store });
    assert.equal(await source.authorization(), undefined);
    assert.equal(await source.authorization(), undefined);
    assert.equal(store.reads, 1);
    await new FileTokenStore(file).set(entry('token-late-dddddddd'));
    assert.equal(await source.authorization(), 'Bearer token-late-dddddddd');
  });

  it('after a 401 the file is read again', async () => {
    const { store, source } = await setup('after-401');
    await source.authorization();
    assert.equal(store.reads, 1);
    assert.equal(await source.onUnauthorized(), false, 'nothing to renew with');
    await source.authorization();
    assert.ok(store.reads >= 2, `read again after the 401 (reads: ${store.reads})`);
  });

  it('status() always reads the file', async () => {
    const { store, source } = await setup('status');
    await source.authorization();
    await source.status();
    assert.equal(store.reads, 2);
  });
});
