/**
 * The project's logger makes its pino logger for its first line: levels, children and redaction
 * behave as pino's, and a process that writes no line never loads pino.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { createLogger, LogLevelError, silentLogger } from '../src/core/logger.js';

const LOGGER = fileURLToPath(new URL('../src/core/logger.js', import.meta.url));

function capture(level: string) {
  const lines: Record<string, unknown>[] = [];
  const logger = createLogger(level, { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) });
  return { logger, lines };
}

/** Whether pino is in the module cache of a fresh process after `script` ran with the logger. */
function pinoLoadedAfter(script: string): boolean {
  const code = `import { createRequire } from 'node:module'; import { createLogger, silentLogger } from ${JSON.stringify(LOGGER)};
const logger = createLogger('warn', { write() {} }); ${script}
const cache = createRequire(import.meta.url).cache; console.log(Object.keys(cache).some((file) => /[\\\\/]node_modules[\\\\/]pino[\\\\/]/.test(file)));`;
  const result = spawnSync(process.execPath, ['--input-type=module', '-e', code], { encoding: 'utf8' });
  assert.equal(result.status, 0, result.stderr);
  return result.stdout.trim() === 'true';
}

describe('logger', () => {
  it('loads pino with the first line written, not before, and not for lines below its level', () => {
    assert.equal(pinoLoadedAfter(`logger.info('below warn'); logger.debug({ a: 1 }, 'below'); logger.child({ request_id: 'r' }).info('below');`), false);
    assert.equal(pinoLoadedAfter(`logger.warn('a line');`), true);
  });

  it('writes pino lines at and above its level, with fields, the name and redaction', () => {
    const { logger, lines } = capture('info');
    logger.debug('hidden');
    logger.info({ server: 'x', token: 'secret-token', headers: { authorization: 'Bearer abc' } }, 'shown');
    logger.error('also shown');
    assert.equal(lines.length, 2);
    assert.deepEqual(
      lines.map((line) => [line.level, line.msg, line.name]),
      [
        [30, 'shown', 'toolservers'],
        [50, 'also shown', 'toolservers'],
      ],
    );
    assert.equal(lines[0]!.token, '[redacted]');
    assert.deepEqual(lines[0]!.headers, { authorization: '[redacted]' });
    assert.ok(!JSON.stringify(lines).includes('secret-token'));
  });

  it('answers level questions before and after its pino logger exists, and takes a new level either way', () => {
    const { logger, lines } = capture('warn');
    assert.equal(logger.level, 'warn');
    assert.equal(logger.isLevelEnabled('info'), false);
    assert.equal(logger.isLevelEnabled('warn'), true);
    assert.equal(logger.isLevelEnabled('silent'), false);
    logger.level = 'info';
    assert.equal(logger.isLevelEnabled('info'), true);
    logger.info('now shown');
    assert.equal(lines.length, 1);
    logger.level = 'error';
    assert.equal(logger.level, 'error');
    logger.warn('hidden again');
    assert.equal(lines.length, 1);
    assert.throws(() => {
      capture('warn').logger.level = 'loud';
    }, LogLevelError);
  });

  it('gives children their bindings and the level their parent had, made or not', () => {
    const { logger, lines } = capture('debug');
    const early = logger.child({ request_id: 'early' });
    early.debug('from a child made before any line');
    logger.info('parent');
    const late = logger.child({ request_id: 'late' });
    late.info({ n: 1 }, 'from a child made after');
    assert.deepEqual(
      lines.map((line) => [line.msg, line.request_id]),
      [
        ['from a child made before any line', 'early'],
        ['parent', undefined],
        ['from a child made after', 'late'],
      ],
    );
    const quiet = capture('warn');
    quiet.logger.child({ request_id: 'q' }).info('below the level');
    assert.equal(quiet.lines.length, 0);
  });

  it('the silent logger has no level enabled and writes nothing, so it never even makes a pino logger', () => {
    assert.equal(silentLogger.isLevelEnabled('fatal'), false);
    assert.equal(silentLogger.child({ a: 1 }).isLevelEnabled('trace'), false);
    assert.equal(pinoLoadedAfter(`silentLogger.fatal('nothing'); silentLogger.child({ a: 1 }).error({ b: 2 }, 'nothing');`), false);
  });
});
