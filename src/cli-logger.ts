/**
 * The command line's logger (stderr) and stdout handling, shared by every command and by the
 * start of a server without the command-line parser (main.ts).
 */
import { createLogger, LogLevelError, resolveLogLevel } from './core/logger.js';

// Commands that print for people stay quiet unless asked; servers log at info.
const quietCommand = ['call', 'tools', 'sandbox', 'login', 'logout', 'auth'].includes(process.argv[2] ?? '');
// An unknown level stops every command with one line that lists the valid ones (exit code 2).
export const logger = (() => {
  try {
    return createLogger(resolveLogLevel(process.env.TOOLSERVERS_LOG_LEVEL, quietCommand ? 'warn' : 'info'));
  } catch (error) {
    if (!(error instanceof LogLevelError)) throw error;
    process.stderr.write(`${error.message}\n`);
    process.exit(2);
  }
})();

// `toolservers tools | head` closes the pipe early: that is not an error.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code === 'EPIPE') process.exit(0);
  throw error;
});
