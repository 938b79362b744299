/**
 * The interaction page oidc-provider sends an authorization to: for the one MCP endpoint the
 * request names, the platform sign-in on the first visit, then (once the platform answered in
 * this browser) the consent page, or the end of the authorization when the sign-in failed.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { showConsent, endRefusedSignIn, type ConsentState } from './consent.js';
import { requestedMount } from './endpoints.js';
import { sendErrorPage } from './pages.js';
import { sendToPlatform, type PlatformSignInState } from './platform-sign-in.js';
import { signedInKey, type SignedIn, type SignInRefused } from './sign-in-state.js';

export async function showInteraction(state: ConsentState & PlatformSignInState, req: IncomingMessage, res: ServerResponse, uid: string): Promise<void> {
  const details = await state.provider.interactionDetails(req, res);
  if (details.uid !== uid) return sendErrorPage(res, 400, 'Sign-in expired', 'This page belongs to another authorization.');
  const target = requestedMount(state.site, state.mounts, details.params);
  if (typeof target === 'string') {
    await state.provider.interactionFinished(req, res, { error: 'invalid_target', error_description: target }, { mergeWithLastSubmission: false });
    return;
  }
  const signedInRecord = await state.records.get(signedInKey(state.records, uid));
  // First visit: off to the platform's own sign-in and consent.
  if (signedInRecord === undefined) return sendToPlatform(state, res, uid, target.mount, details.params);
  const signedIn = signedInRecord as unknown as SignedIn | SignInRefused;
  if ('error' in signedIn) return endRefusedSignIn(state, req, res, uid, signedIn);
  return showConsent(state, res, uid, details, target, signedIn);
}
