/**
 * The command line's logger (stderr) and stdout handling, shared by every command and by the
 * start of a server without the command-line parser (main.ts).
 */
import { createLogger, LogLevelError, resolveLogLevel } from './core/logger.js';

// Quiet unless asked: a stdio server's stderr is shown by clients as errors, and a command prints
// for people. An HTTP server raises itself to info once its banner is out (raiseToServerLogLevel).
const levelIsSet = Boolean(process.env.TOOLSERVERS_LOG_LEVEL?.trim());
// An unknown level stops every command with one line that lists the valid ones (exit code 2).
export const logger = (() => {
  try {
    return createLogger(resolveLogLevel(process.env.TOOLSERVERS_LOG_LEVEL, 'warn'));
  } catch (error) {
    if (!(error instanceof LogLevelError)) throw error;
    process.stderr.write(`${error.message}\n`);
    process.exit(2);
  }
})();

/** An HTTP server logs requests and state at info, unless TOOLSERVERS_LOG_LEVEL says otherwise. */
export function raiseToServerLogLevel(): void {
  if (!levelIsSet) logger.level = 'info';
}

// `toolservers tools | head` closes the pipe early: that is not an error.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code === 'EPIPE') process.exit(0);
  throw error;
});
