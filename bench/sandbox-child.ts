/**
 * The sandbox in its own process for the HTTP benches: prints `SANDBOX <json>` with its URL, base
 * URLs and OAuth endpoints, and runs until its parent leaves.
 */
import { startSandbox } from '../src/sandbox/server.js';

const sandbox = await startSandbox({ port: 0 });
process.on('disconnect', () => void sandbox.close().then(() => process.exit(0)));
console.log(`SANDBOX ${JSON.stringify({ url: sandbox.url, incidentops: sandbox.incidentops, oauth: sandbox.oauth })}`);
