/**
 * oidc-provider's storage over SharedStore, so replicas share clients, codes, tokens, sessions
 * and interactions. Expiry is the store's TTL; each grant's artefacts are listed in a set, so
 * revoking a grant deletes every code and token of it at once.
 *
 * Nothing in the store gives a token away or can be forged: key names carry an HMAC of the id
 * (access and refresh tokens, codes and session ids are the ids), and every value is sealed
 * (JWE, sealed.ts) for its key name, so a record written without the state key, or moved to
 * another key, is refused as absent (with a warning that never carries the value).
 *
 * With `allowHttpClientIds` (tests and local development only), a Client ID Metadata Document
 * at an http loopback URL is fetched (loopback-client-document.ts) under the rules oidc-provider
 * applies to the https ones it fetches itself (with its SSRF protection), and cached briefly. Any
 * other http client_id is refused here with an error that says so (oidc-provider would only say
 * "client is invalid").
 */
import { createHmac, randomUUID } from 'node:crypto';
import { errors as providerErrors } from 'oidc-provider';
import type { Logger } from '../../logger.js';
import { decryptValue, encryptValue, SealedValueError, type StateKey } from '../../store/sealed.js';
import type { SharedStore } from '../../store/store.js';
import { fetchLoopbackClientDocument, isLoopbackHttpClientId } from './loopback-client-document.js';
import { RecordCache } from './record-cache.js';

/** What oidc-provider stores per artefact (only the fields read here are named). */
export interface AdapterPayload {
  grantId?: string;
  userCode?: string;
  uid?: string;
  exp?: number;
  consumed?: number;
  resource?: string | string[];
  [key: string]: unknown;
}

export interface Adapter {
  upsert(id: string, payload: AdapterPayload, expiresIn: number): Promise<void>;
  find(id: string): Promise<AdapterPayload | undefined>;
  findByUserCode(userCode: string): Promise<AdapterPayload | undefined>;
  findByUid(uid: string): Promise<AdapterPayload | undefined>;
  consume(id: string): Promise<void>;
  destroy(id: string): Promise<void>;
  revokeByGrantId(grantId: string): Promise<void>;
}

/** Models a bearer check reads on every MCP request: they only appear and disappear, so replicas remember them (record-cache.ts). */
const REMEMBERED_MODELS = new Set(['AccessToken', 'Grant']);
/**
 * A use of a code or refresh token claimed this long ago whose tokens were never stored was cut
 * off by the store (its command timeout is 2 s): a second use is that attempt's retry, not a theft.
 */
const UNFINISHED_USE_MS = 2_000;
/** Uses claimed in this process, by grant, until their tokens are stored. */
const MAX_UNFINISHED_USES = 1_000;

/** Long enough for any artefact of a grant (the grant's own lifetime bounds them all). */
const GRANT_SET_TTL_MS = 31 * 24 * 3600_000;
/** A client outlives its longest grant by this much (covers two replicas saving grants at once). */
const CLIENT_KEEP_MARGIN_MS = 24 * 3600_000;
/** A loopback client's metadata document is fetched again after this. */
const METADATA_DOCUMENT_CACHE_MS = 5 * 60_000;

/** Two keys derived from TOOLSERVERS_STATE_KEY: one names records, one seals them. */
export interface RecordKeys {
  naming: Uint8Array;
  sealing: StateKey;
}

export interface AdapterOptions {
  keys: RecordKeys;
  logger: Logger;
  allowHttpClientIds?: boolean;
  fetch?: typeof fetch;
  /** A registered client expires after this unless an authorization is completed with it (default: kept). */
  unusedClientTtlMs?: number;
  /** The error for a second use of a code or refresh token (oidc-provider's invalid_grant). */
  alreadyUsed?: (model: string) => Error;
  /** The resources the current token request names (RFC 8707), checked before a code or refresh token is used up. */
  requestedResources?: () => string[];
}

/**
 * The records of oidc-provider's models in the store: each under `oauth:<model>:<HMAC of its id>`,
 * sealed for that key name. Exported for tests, which read and forge records as an attacker would.
 */
export interface OAuthRecords {
  /** The store key of a model's record (`kind` also names the lookup indexes: `Session:uid`, `grant`, `cimd`). */
  key(kind: string, id: string): string;
  get(key: string): Promise<AdapterPayload | undefined>;
  set(key: string, payload: unknown, ttlMs?: number): Promise<void>;
  /** Reads and deletes in one step (one-time records); a record that does not verify is gone and reads as absent. */
  take(key: string): Promise<AdapterPayload | undefined>;
}

export function oauthRecords(store: SharedStore, keys: RecordKeys, logger: Logger): OAuthRecords {
  const open = async (key: string, text: string | undefined): Promise<AdapterPayload | undefined> => {
    if (text === undefined) return undefined;
    try {
      return JSON.parse(await decryptValue(keys.sealing, text, key)) as AdapterPayload;
    } catch (error) {
      if (!(error instanceof SealedValueError)) throw error;
      // Written without the state key, moved from another key, or sealed with an old key.
      logger.warn({ key, reason: error.message }, 'refused an OAuth store record that does not verify');
      return undefined;
    }
  };
  return {
    key: (kind, id) => `oauth:${kind}:${createHmac('sha256', keys.naming).update(`${kind}\0${id}`).digest('base64url')}`,
    get: async (key) => open(key, await store.get(key)),
    take: async (key) => open(key, await store.take(key)),
    async set(key, payload, ttlMs) {
      await store.set(key, await encryptValue(keys.sealing, JSON.stringify(payload), key), ttlMs);
    },
  };
}

/** A code or refresh token whose use is claimed, until the tokens it pays for are stored. */
interface UnfinishedUse {
  key: string;
  usedKey: string;
  payload: AdapterPayload;
  ttlMs: number | undefined;
}

/** What every model's adapter of one provider shares. */
interface AdapterContext {
  store: SharedStore;
  records: OAuthRecords;
  /** Access tokens and grants remembered by this replica (record-cache.ts). */
  remembered: RecordCache<AdapterPayload>;
  /** Uses claimed in this process, by grant, until their tokens are stored. */
  unfinishedUses: Map<string, UnfinishedUse>;
  options: AdapterOptions;
}

export function sharedStoreAdapter(store: SharedStore, options: AdapterOptions): new (name: string) => Adapter {
  const records = oauthRecords(store, options.keys, options.logger);
  const remembered = new RecordCache<AdapterPayload>(store, options.logger);
  remembered.listen();
  const context: AdapterContext = { store, records, remembered, unfinishedUses: new Map(), options };
  return class SharedStoreAdapter extends StoreAdapter {
    constructor(name: string) {
      super(context, name);
    }
  };
}

const grantSetKey = (records: OAuthRecords, grantId: string): string => records.key('grant', grantId);

/** A client with a grant is kept for the grant's lifetime: raised, never lowered, across replicas. */
async function keepClient({ store, records }: AdapterContext, clientId: string, grantTtlMs: number): Promise<void> {
  const keptUntil = await store.raiseTo(records.key('client-kept-until', clientId), Date.now() + grantTtlMs, grantTtlMs + CLIENT_KEEP_MARGIN_MS);
  const key = records.key('Client', clientId);
  const client = await records.get(key);
  if (client !== undefined) await records.set(key, client, keptUntil - Date.now() + CLIENT_KEEP_MARGIN_MS);
}

/** Every code and token of a grant, and the grant itself (what oidc-provider's own revoke removes), on every replica. */
async function revokeGrant({ store, records, remembered }: AdapterContext, grantId: string): Promise<void> {
  const setKey = grantSetKey(records, grantId);
  const members = await store.setMembers(setKey);
  const grantKey = records.key('Grant', grantId);
  await store.delete(...members, setKey, grantKey);
  await remembered.gone([...members, grantKey]);
}

/** The tokens of a claimed use are stored: the use is final (a second one is a theft, and ends the grant). */
async function finishUse({ store, records, unfinishedUses }: AdapterContext, grantId: string): Promise<void> {
  const use = unfinishedUses.get(grantId);
  if (!use) return;
  unfinishedUses.delete(grantId);
  await store.set(use.usedKey, 'done', use.ttlMs ?? GRANT_SET_TTL_MS);
  await records.set(use.key, { ...use.payload, consumed: Math.floor(Date.now() / 1000) }, use.ttlMs);
}

/** A code or refresh token used for a resource it was not granted: refused before it is used up, so a retry for the right one still works. */
function checkRequestedResources(options: AdapterOptions, payload: AdapterPayload): void {
  const granted = new Set(Array.isArray(payload.resource) ? payload.resource : payload.resource === undefined ? [] : [payload.resource]);
  const wrong = (options.requestedResources?.() ?? []).find((resource) => !granted.has(resource));
  if (wrong !== undefined) throw new providerErrors.InvalidTarget(`${wrong} is not the resource this grant was given for`);
}

/**
 * Claims the one use of a code or refresh token in the store. A claim older than a store command
 * whose tokens were never stored was cut off: taken over. Any other earlier claim makes this a
 * second use: the grant is revoked and the use refused.
 */
async function claimUse(context: AdapterContext, model: string, usedKey: string, payload: AdapterPayload, ttlMs: number | undefined): Promise<void> {
  const { store, options } = context;
  const claim = `claimed:${Date.now()}:${randomUUID()}`;
  if (await store.setIfAbsent(usedKey, claim, ttlMs ?? GRANT_SET_TTL_MS)) return;
  const mark = await store.get(usedKey);
  const claimedAt = Number(/^claimed:(\d+):/.exec(mark ?? '')?.[1] ?? Number.NaN);
  const cutOff = Date.now() - claimedAt > UNFINISHED_USE_MS;
  if (!(cutOff && mark !== undefined && (await store.deleteIfHeld(usedKey, mark)) && (await store.setIfAbsent(usedKey, claim, ttlMs ?? GRANT_SET_TTL_MS)))) {
    if (payload.grantId) await revokeGrant(context, payload.grantId);
    throw options.alreadyUsed?.(model) ?? new Error(`${model} already used`);
  }
  options.logger.info({ model }, 'a use cut off by the store is retried: taken over, not treated as reuse');
}

/** A client ID metadata document on loopback http (dev flag only): fetched, checked, cached briefly. */
async function loopbackClientDocument({ records, options }: AdapterContext, id: string): Promise<AdapterPayload> {
  const cacheKey = records.key('cimd', id);
  const cached = await records.get(cacheKey);
  if (cached !== undefined) return cached;
  const payload = (await fetchLoopbackClientDocument(id, options.fetch ?? fetch)) as AdapterPayload;
  await records.set(cacheKey, payload, METADATA_DOCUMENT_CACHE_MS);
  return payload;
}

/** One model's records (oidc-provider makes one adapter per model: Client, AccessToken, Grant, Session, ...). */
class StoreAdapter implements Adapter {
  constructor(
    private readonly context: AdapterContext,
    private readonly name: string,
  ) {}

  private key(id: string): string {
    return this.context.records.key(this.name, id);
  }

  /** An index from another value (user code, session uid) to a record's id; the id is sealed too. */
  private async findVia(kind: string, value: string): Promise<AdapterPayload | undefined> {
    const { records } = this.context;
    const pointer = (await records.get(records.key(`${this.name}:${kind}`, value))) as { id?: unknown } | undefined;
    return typeof pointer?.id === 'string' ? this.find(pointer.id) : undefined;
  }

  async upsert(id: string, payload: AdapterPayload, expiresIn: number): Promise<void> {
    const { store, records, remembered, options } = this.context;
    const key = this.key(id);
    const ttl = expiresIn > 0 ? expiresIn * 1000 : this.name === 'Client' ? options.unusedClientTtlMs : undefined;
    await records.set(key, payload, ttl);
    // A changed grant must not be served from another replica's memory.
    if (this.name === 'Grant') await remembered.gone([key]);
    if (this.name === 'Grant' && typeof payload.clientId === 'string' && ttl !== undefined) await keepClient(this.context, payload.clientId, ttl);
    if (payload.grantId) await store.addToSet(grantSetKey(records, payload.grantId), key, GRANT_SET_TTL_MS);
    if (payload.userCode) await records.set(records.key(`${this.name}:user-code`, payload.userCode), { id }, ttl);
    if (payload.uid && this.name === 'Session') await records.set(records.key(`${this.name}:uid`, payload.uid), { id }, ttl);
    // The access token is the last thing a code or refresh token pays for.
    if (this.name === 'AccessToken' && payload.grantId) await finishUse(this.context, payload.grantId);
  }

  async find(id: string): Promise<AdapterPayload | undefined> {
    const { records, remembered, options } = this.context;
    const key = this.key(id);
    const remembers = REMEMBERED_MODELS.has(this.name);
    const known = remembers ? remembered.get(key) : undefined;
    if (known) return structuredClone(known);
    const found = await records.get(key);
    if (found !== undefined) {
      if (remembers) remembered.set(key, structuredClone(found), typeof found.exp === 'number' ? found.exp * 1000 : undefined);
      return found;
    }
    if (this.name === 'Client' && /^http:/i.test(id)) {
      if (options.allowHttpClientIds && isLoopbackHttpClientId(id)) return loopbackClientDocument(this.context, id);
      throw new providerErrors.InvalidClient(`a client_id that is a URL (Client ID Metadata Document) must be an https URL${options.allowHttpClientIds ? ' (http only on 127.0.0.1, localhost or [::1], with a path)' : ''}`);
    }
    return undefined;
  }

  async findByUserCode(userCode: string): Promise<AdapterPayload | undefined> {
    return this.findVia('user-code', userCode);
  }

  async findByUid(uid: string): Promise<AdapterPayload | undefined> {
    return this.findVia('uid', uid);
  }

  /**
   * Marks a code or refresh token used. oidc-provider checks `consumed` before it calls this, so
   * two replicas redeeming one value at the same moment would both pass that check: the use is
   * claimed here atomically, and the loser gets invalid_grant with the whole grant revoked, as
   * for any reuse. The use counts as made only once its tokens are stored (upsert of the access
   * token): a request the store cut off half-way leaves a claim whose retry, once that request
   * has certainly failed, takes the use over instead of being treated as a theft.
   */
  async consume(id: string): Promise<void> {
    const { store, records, unfinishedUses, options } = this.context;
    const key = this.key(id);
    const payload = await records.get(key);
    if (payload === undefined) return;
    checkRequestedResources(options, payload);
    const ttlMs = typeof payload.exp === 'number' ? Math.max(1, payload.exp * 1000 - Date.now()) : undefined;
    const usedKey = `${key}:used`;
    await claimUse(this.context, this.name, usedKey, payload, ttlMs);
    if (payload.grantId) {
      await store.addToSet(grantSetKey(records, payload.grantId), usedKey, GRANT_SET_TTL_MS);
      if (unfinishedUses.size >= MAX_UNFINISHED_USES) unfinishedUses.delete(unfinishedUses.keys().next().value as string);
      unfinishedUses.set(payload.grantId, { key, usedKey, payload, ttlMs });
    }
  }

  async destroy(id: string): Promise<void> {
    const key = this.key(id);
    await this.context.store.delete(key);
    if (REMEMBERED_MODELS.has(this.name)) await this.context.remembered.gone([key]);
  }

  async revokeByGrantId(grantId: string): Promise<void> {
    const { store, records, remembered } = this.context;
    const setKey = grantSetKey(records, grantId);
    const members = await store.setMembers(setKey);
    await store.delete(...members, setKey);
    await remembered.gone(members);
  }
}
