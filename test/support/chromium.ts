/**
 * Debian's chromium for the tests that drive a real browser through playwright-core
 * (test/oauth-browser.test.ts, test/views-browser.test.ts). .ci/run installs it; where it is
 * missing, those tests skip with this message.
 */
import { existsSync } from 'node:fs';

/** The browser to launch: $CHROMIUM_PATH, else Debian's or Ubuntu's path. */
export const CHROMIUM = [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser'].find((path): path is string => Boolean(path && existsSync(path)));
export const NO_CHROMIUM = "no chromium found (install Debian's chromium: apt-get install -y chromium, or set CHROMIUM_PATH)";
