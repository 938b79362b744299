/**
 * A Client ID Metadata Document at an http loopback URL, accepted only with `allowHttpClientIds`
 * (tests and local development): fetched and checked under the rules oidc-provider applies to the
 * https ones it fetches itself: at most 5 KB within 2.5 s, no redirect, a JSON object that names
 * itself and holds no shared secret.
 */
import { errors as providerErrors } from 'oidc-provider';

/** oidc-provider's limits for the https documents it fetches: 5 KB, 2.5 s. */
const METADATA_DOCUMENT_MAX_BYTES = 5 * 1024;
const METADATA_DOCUMENT_TIMEOUT_MS = 2500;

export function isLoopbackHttpClientId(id: string): boolean {
  let url: URL;
  try {
    url = new URL(id);
  } catch {
    return false;
  }
  return url.protocol === 'http:' && (url.hostname === '127.0.0.1' || url.hostname === 'localhost' || url.hostname === '[::1]') && url.pathname !== '/' && !url.hash && !url.username;
}

function fetchFailed(why: string): Error {
  return new providerErrors.InvalidClient(`client_id metadata document fetch failed: ${why}`);
}

/** The client's metadata from its document, or oidc-provider's invalid_client / invalid_client_metadata saying why not. */
export async function fetchLoopbackClientDocument(id: string, fetchDocument: typeof fetch): Promise<Record<string, unknown>> {
  const fields = parseClientDocument(await fetchDocumentText(id, fetchDocument));
  // The same rules as for https documents: it names itself, and has no shared secret.
  if (fields.client_id !== id) throw new providerErrors.InvalidClientMetadata('client_id metadata document client_id does not match the URL it was fetched from');
  if ('client_secret' in fields || 'client_secret_expires_at' in fields) throw new providerErrors.InvalidClientMetadata('client_id metadata document must not contain client_secret or client_secret_expires_at');
  const method = fields.token_endpoint_auth_method ?? 'none';
  if (method !== 'none' && method !== 'private_key_jwt') throw new providerErrors.InvalidClientMetadata('client_id metadata document token_endpoint_auth_method must be none or private_key_jwt');
  return { ...fields, token_endpoint_auth_method: method };
}

async function fetchDocumentText(id: string, fetchDocument: typeof fetch): Promise<string> {
  try {
    const response = await fetchDocument(id, { headers: { accept: 'application/json' }, redirect: 'manual', signal: AbortSignal.timeout(METADATA_DOCUMENT_TIMEOUT_MS) });
    if (response.status !== 200) {
      await response.body?.cancel();
      throw fetchFailed(`unexpected response status ${response.status}`);
    }
    return await readCapped(response, METADATA_DOCUMENT_MAX_BYTES, () => fetchFailed(`the document is larger than ${METADATA_DOCUMENT_MAX_BYTES} bytes`));
  } catch (error) {
    if (error instanceof providerErrors.InvalidClient) throw error;
    const name = (error as { name?: string }).name;
    const code = (error as { cause?: { code?: unknown } }).cause?.code;
    throw fetchFailed(name === 'TimeoutError' || name === 'AbortError' ? `no complete answer within ${METADATA_DOCUMENT_TIMEOUT_MS / 1000} s` : `the request failed${typeof code === 'string' ? ` (${code})` : ''}`);
  }
}

function parseClientDocument(text: string): Record<string, unknown> {
  let document: unknown;
  try {
    document = JSON.parse(text);
  } catch {
    throw fetchFailed('the answer is not JSON');
  }
  if (typeof document !== 'object' || document === null || Array.isArray(document)) throw new providerErrors.InvalidClientMetadata('client_id metadata document is not a JSON object');
  return document as Record<string, unknown>;
}

/** The body as text, refused (without reading on) once it passes `limit` bytes. */
async function readCapped(response: Response, limit: number, tooLarge: () => Error): Promise<string> {
  if (Number(response.headers.get('content-length') ?? 0) > limit) {
    await response.body?.cancel();
    throw tooLarge();
  }
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of response.body ?? []) {
    size += (chunk as Uint8Array).length;
    // Leaving the loop by a throw cancels the stream.
    if (size > limit) throw tooLarge();
    chunks.push(chunk as Uint8Array);
  }
  return Buffer.concat(chunks).toString('utf8');
}
