/**
 * A real headless browser (Debian's chromium through playwright-core) clicks through the whole
 * OAuth sign-in: the sandbox platform's consent page with its user picker, then the server's own
 * consent page. Skipped, with a message, when no chromium is installed.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { RunningSandbox } from '../src/sandbox/server.js';
import { startTestSandbox } from './support/harness.js';
import { callJson, CLIENT_REDIRECT, MemoryOAuthProvider, startOAuthServer, type OAuthTestServer } from './support/oauth-client.js';
import { CHROMIUM, NO_CHROMIUM } from './support/chromium.js';

const skip = CHROMIUM ? false : NO_CHROMIUM;

describe('OAuth sign-in in a real browser', { skip }, () => {
  let sandbox: RunningSandbox;
  let server: OAuthTestServer;
  before(async () => {
    sandbox = await startTestSandbox({ oauth: { consent: 'click' } });
    server = await startOAuthServer(sandbox);
  });
  after(async () => {
    await server?.close();
    await sandbox?.close();
  });

  it('picks a user on the platform consent page, allows on the server consent page, and the client acts as that user', async () => {
    const { chromium } = await import('playwright-core');
    const provider = new MemoryOAuthProvider();
    const first = new Client({ name: 'oauth-test', version: '1.0.0' });
    await assert.rejects(first.connect(new StreamableHTTPClientTransport(new URL(server.endpoint('incidentops')), { authProvider: provider })));
    const browser = await chromium.launch({ executablePath: CHROMIUM as string, args: ['--no-sandbox'] });
    try {
      const page = await browser.newPage();
      let answer: URLSearchParams | undefined;
      // The client's redirect URI: captured here instead of a local receiver.
      await page.route(`${CLIENT_REDIRECT}**`, async (route) => {
        answer = new URL(route.request().url()).searchParams;
        await route.fulfill({ status: 200, contentType: 'text/html', body: '<!doctype html><html lang="en"><title>Done</title><h1>Done</h1></html>' });
      });
      await page.goto((provider.authorizationUrl as URL).href);
      // The sandbox platform's consent page: a labelled radio group of users.
      await page.getByRole('heading', { level: 1 }).waitFor();
      assert.match(await page.getByRole('heading', { level: 1 }).innerText(), /IncidentOps sandbox/);
      const radios = page.getByRole('radio');
      assert.ok((await radios.count()) > 1, 'the picker lists several users');
      const second = radios.nth(1);
      const pickedId = await second.getAttribute('value');
      await second.check();
      await page.getByRole('button', { name: 'Allow' }).click();
      // The server's own consent page.
      await page.getByRole('heading', { name: /Allow OAuth test client to use IncidentOps/ }).waitFor();
      assert.equal(await page.locator('html').getAttribute('lang'), 'en');
      await page.getByRole('button', { name: 'Allow' }).click();
      await page.getByRole('heading', { name: 'Done' }).waitFor({ timeout: 10_000 }).catch(async (error: unknown) => {
        throw new Error(`the browser stopped at ${page.url()}: ${(await page.content()).slice(0, 400)} (${String(error)})`);
      });
      assert.ok(answer?.get('code'), 'the client received a code');
      const transport = new StreamableHTTPClientTransport(new URL(server.endpoint('incidentops')), { authProvider: provider });
      await transport.finishAuth(answer as URLSearchParams);
      const client = new Client({ name: 'oauth-test', version: '1.0.0' });
      await client.connect(new StreamableHTTPClientTransport(new URL(server.endpoint('incidentops')), { authProvider: provider }));
      const who = await callJson(client, 'IncidentOps.WhoAmI');
      await client.close();
      assert.equal((who.data.user as Record<string, unknown>).id, pickedId);
    } finally {
      await browser.close();
    }
  });
});
