/**
 * Which route of the layer answers a request: the metadata documents, then everything under
 * /oauth, admitted first (admission.ts), then the layer's own sign-in steps or oidc-provider. A
 * failure of any step is answered here: 503 when the store does not answer, an expired sign-in
 * when the browser holds no interaction, otherwise 500 with the cause in the log only.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { requestLog } from '../http/request-id.js';
import type { Admission } from './admission.js';
import { isStoreFailure, sendStoreUnavailable } from './answers.js';
import { confirmConsent, type ConsentState } from './consent.js';
import { ISSUER_PATH, pinToPublicOrigin, PROTECTED_RESOURCE_PREFIX } from './endpoints.js';
import { showInteraction } from './interaction.js';
import { isAuthorizationServerMetadataPath, serveAuthorizationServerMetadata, serveProtectedResourceMetadata } from './metadata.js';
import { sendErrorPage } from './pages.js';
import { finishPlatformSignIn, platformCallback, type PlatformSignInState } from './platform-sign-in.js';
import { toProvider, type StartedProvider } from './provider.js';

/** Everything the routes of a started layer read and write (each route names the part it uses). */
export interface RouteState extends ConsentState, PlatformSignInState {
  provider: ConsentState['provider'];
  /** oidc-provider's request handler. */
  callback: StartedProvider['callback'];
  admission: Admission;
}

const INTERACTION_PATH = /^\/oauth\/interaction\/([A-Za-z0-9_-]{1,64})(\/confirm|\/callback)?$/;

/** Serves the layer's own routes; false when the request is not one of them. */
export async function serveLayerRoute(state: RouteState, req: IncomingMessage, res: ServerResponse): Promise<boolean> {
  const path = (req.url ?? '/').split('?')[0] ?? '/';
  if (path.startsWith(PROTECTED_RESOURCE_PREFIX)) return serveProtectedResourceMetadata(state.site, state.mounts, res, path);
  if (isAuthorizationServerMetadataPath(path)) {
    serveAuthorizationServerMetadata(state.site, state.callback, req, res);
    return true;
  }
  if (path !== ISSUER_PATH && !path.startsWith(`${ISSUER_PATH}/`)) return false;
  pinToPublicOrigin(state.site, req);
  try {
    if (!(await state.admission.admit(req, res))) return true;
    await serveOAuthPath(state, req, res, path);
  } catch (error) {
    answerFailure(state, req, res, path, error);
  }
  return true;
}

/** A path under /oauth: the platform's way back, the interaction's steps, else oidc-provider. */
async function serveOAuthPath(state: RouteState, req: IncomingMessage, res: ServerResponse, path: string): Promise<void> {
  const interaction = INTERACTION_PATH.exec(path);
  const uid = interaction?.[1] as string;
  const step = interaction?.[2];
  if (path === `${ISSUER_PATH}/callback`) await platformCallback(state, req, res);
  else if (interaction && !step && req.method === 'GET') await showInteraction(state, req, res, uid);
  else if (interaction && step === '/callback' && req.method === 'GET') await finishPlatformSignIn(state, req, res, uid);
  else if (interaction && step === '/confirm' && req.method === 'POST') await confirmConsent(state, req, res, uid);
  else toProvider(state.callback, req, res, path.slice(ISSUER_PATH.length));
}

function answerFailure(state: Pick<RouteState, 'logger'>, req: IncomingMessage, res: ServerResponse, path: string, error: unknown): void {
  const name = (error as { name?: string }).name;
  if (isStoreFailure(error)) {
    requestLog(state.logger, req).warn({ path, err: error instanceof Error ? error.message : String(error) }, 'OAuth interaction waits for the store');
    sendStoreUnavailable(res, true);
  } else if (name === 'SessionNotFound') {
    sendErrorPage(res, 400, 'Sign-in expired', 'This authorization is unknown to this browser or has expired.');
  } else {
    requestLog(state.logger, req).error({ path, err: error instanceof Error ? error.message : String(error) }, 'OAuth interaction failed');
    sendErrorPage(res, 500, 'Sign-in failed', 'The server could not complete the sign-in.');
  }
}
