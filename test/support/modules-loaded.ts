/**
 * Runs a `toolservers` server command over stdio with the module-log preload: the modules it had
 * loaded when it answered tools/list, and after it answered one tool call (when one is given).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const PRELOAD = path.resolve(path.dirname(fileURLToPath(import.meta.url)), 'module-log.js');

export interface ModulesLoaded {
  /** Loaded by the time tools/list was answered. */
  atList: string[];
  /** Loaded by the time the tool call was answered (the same as atList without a call). */
  afterCall: string[];
  tools: number;
  /** The tool call's result. */
  called?: { isError?: boolean; content: { type: string; text: string }[] };
}

function message(id: number, method: string, params: unknown): string {
  return `${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`;
}

export async function modulesLoadedBy(cli: string, args: string[], call?: { name: string; arguments: unknown }): Promise<ModulesLoaded> {
  const dir = mkdtempSync(path.join(tmpdir(), 'toolservers-imports-'));
  const log = path.join(dir, 'modules.log');
  const modules = () => readFileSync(log, 'utf8').split('\n').filter(Boolean);
  try {
    return await new Promise<ModulesLoaded>((resolve, reject) => {
      const child = spawn(process.execPath, ['--import', PRELOAD, cli, ...args], {
        env: { PATH: process.env.PATH ?? '', HOME: dir, MODULE_LOG: log, TOOLSERVERS_CREDENTIALS_FILE: path.join(dir, 'credentials.json'), TOOLSERVERS_LOG_LEVEL: 'warn', INCIDENTOPS_ACCESS_TOKEN: 'dummy', CANVASAPI_ACCESS_TOKEN: 'dummy' },
      });
      let out = '';
      let err = '';
      let result: Partial<ModulesLoaded> = {};
      const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
      child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
      child.stdout.on('data', (chunk: Buffer) => {
        out += chunk.toString();
        const lines = out.split('\n');
        out = lines.pop() ?? '';
        for (const line of lines) {
          const answer = JSON.parse(line) as { id?: number; result?: { tools?: unknown[] } & Record<string, unknown> };
          if (answer.id === 2) {
            result = { atList: modules(), tools: answer.result?.tools?.length ?? -1 };
            if (call) child.stdin.write(message(3, 'tools/call', call));
            else child.stdin.end();
          } else if (answer.id === 3) {
            result.called = answer.result as ModulesLoaded['called'];
            child.stdin.end();
          }
        }
      });
      child.on('exit', () => {
        clearTimeout(timer);
        if (result.atList === undefined || (call && !result.called)) reject(new Error(`no answer; stderr: ${err}`));
        else resolve({ ...(result as ModulesLoaded), afterCall: modules() });
      });
      child.stdin.write(
        message(1, 'initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'imports-test', version: '1' } }) +
          `${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n` +
          message(2, 'tools/list', {}),
      );
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
