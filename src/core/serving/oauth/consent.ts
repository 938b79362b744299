/**
 * The consent step, on the server's own page: once the platform said who signed in, the person
 * sees which application asks, where its code goes, for which endpoint and as whom, and allows or
 * denies. The answer counts only from the browser of this authorization (its interaction cookie),
 * with the CSRF token of the page shown, and once: then the user's platform tokens go into the
 * vault and a grant for the one endpoint is made; a denial ends the authorization with
 * access_denied.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { SharedStore } from '../../store/store.js';
import type { OAuthRecords } from './adapter.js';
import { ISSUER_PATH, MCP_SCOPE, requestedMount, type OAuthMount, type PublicSite } from './endpoints.js';
import { sendConsentPage, sendErrorPage } from './pages.js';
import { signedInKey, type InteractionDetails, type InteractionProvider, type SignedIn, type SignInRefused } from './sign-in-state.js';
import type { TokenVault } from './vault.js';
import { sameSecret } from '../../same-secret.js';

/** The state the consent step reads and writes. */
export interface ConsentState {
  /** oidc-provider: the interaction, its client, the grant made, the end of the interaction. */
  provider: InteractionProvider;
  site: PublicSite;
  mounts: readonly OAuthMount[];
  /** The signed-in results awaiting consent. */
  records: OAuthRecords;
  /** Removes a refused sign-in's record. */
  store: SharedStore;
  /** Receives the user's platform tokens when they allow. */
  vault: TokenVault;
}

const MAX_FORM_BYTES = 8 * 1024;

async function readForm(req: IncomingMessage): Promise<URLSearchParams | undefined> {
  if (!/^application\/x-www-form-urlencoded\b/i.test(req.headers['content-type'] ?? '')) return undefined;
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_FORM_BYTES) return undefined;
    chunks.push(chunk as Buffer);
  }
  return new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
}

/** The platform sign-in failed: its record goes, and the authorization ends with its error. */
export async function endRefusedSignIn(state: Pick<ConsentState, 'provider' | 'records' | 'store'>, req: IncomingMessage, res: ServerResponse, uid: string, refused: SignInRefused): Promise<void> {
  await state.store.delete(signedInKey(state.records, uid));
  await state.provider.interactionFinished(req, res, { error: refused.error, error_description: refused.description }, { mergeWithLastSubmission: false });
}

/** The consent page: the client as it registered (or its document's host), where the code goes, the endpoint, the account. */
export async function showConsent(state: Pick<ConsentState, 'provider'>, res: ServerResponse, uid: string, details: InteractionDetails, target: { mount: OAuthMount; resource: string }, signedIn: SignedIn): Promise<void> {
  const client = await state.provider.Client.find(details.params.client_id);
  const clientId = String(details.params.client_id);
  sendConsentPage(res, {
    action: `${ISSUER_PATH}/interaction/${uid}/confirm`,
    csrf: signedIn.csrf,
    clientName: String(client?.clientName ?? clientId),
    clientId,
    // A client with one redirect URI may leave it out of the request.
    redirectUri: String(details.params.redirect_uri ?? client?.redirectUris?.[0] ?? ''),
    ...(/^https?:\/\//.test(clientId) ? { documentHost: new URL(clientId).host } : {}),
    serverName: target.mount.name,
    resource: target.resource,
    scopes: [MCP_SCOPE],
    account: signedIn.account,
  });
}

/** The consent form's answer. */
export async function confirmConsent(state: ConsentState, req: IncomingMessage, res: ServerResponse, uid: string): Promise<void> {
  const details = await state.provider.interactionDetails(req, res);
  if (details.uid !== uid) return sendErrorPage(res, 400, 'Sign-in expired', 'This form belongs to another authorization.');
  const form = await readForm(req);
  const key = signedInKey(state.records, uid);
  const signedIn = (await state.records.get(key)) as Partial<SignedIn> | undefined;
  const csrf = form?.get('csrf');
  if (!signedIn?.csrf || !signedIn.userKey || !signedIn.sealed || !csrf || !sameSecret(csrf, signedIn.csrf)) {
    return sendErrorPage(res, 403, 'Form not accepted', 'The consent form was not sent from the page this server showed.');
  }
  // One answer per sign-in, even when the form is sent twice to two replicas at once.
  if ((await state.records.take(key)) === undefined) return sendErrorPage(res, 400, 'Sign-in expired', 'This consent was already answered.');
  if (form?.get('decision') !== 'allow') {
    await state.provider.interactionFinished(req, res, { error: 'access_denied', error_description: 'The user denied access.' }, { mergeWithLastSubmission: false });
    return;
  }
  const target = requestedMount(state.site, state.mounts, details.params);
  if (typeof target === 'string') return sendErrorPage(res, 400, 'Invalid request', target);
  const tokens = await state.vault.open(signedIn.userKey, signedIn.sealed);
  if (!tokens) return sendErrorPage(res, 400, 'Sign-in expired', 'The platform sign-in could not be read back.');
  await state.vault.put(signedIn.userKey, tokens);
  const grantId = await grantEndpoint(state.provider, signedIn.userKey, details.params.client_id, target.resource);
  await state.provider.interactionFinished(req, res, { login: { accountId: signedIn.userKey }, consent: { grantId } }, { mergeWithLastSubmission: false });
}

/** Saves the grant the consent allows: the user's sign-in, refresh, and `mcp:tools` for the one endpoint. */
async function grantEndpoint(provider: Pick<InteractionProvider, 'Grant'>, userKey: string, clientId: unknown, resource: string): Promise<string> {
  const grant = new provider.Grant({ accountId: userKey, clientId });
  grant.addOIDCScope(`openid offline_access ${MCP_SCOPE}`);
  grant.addResourceScope(resource, MCP_SCOPE);
  return grant.save();
}
