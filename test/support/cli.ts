/** Runs the built CLI as a child process with exactly the given environment, for end-to-end tests. */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const CLI = fileURLToPath(new URL('../../src/cli.js', import.meta.url));

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs `toolservers <args>` with PATH, the given HOME and `env` only. Every output is appended to
 * `transcript` (for secret scans); `onStderr` sees stderr as it grows (to answer a login prompt).
 */
export function runCli(args: string[], options: { home: string; env?: Record<string, string>; transcript?: string[]; onStderr?: (text: string) => void }): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], { env: { PATH: process.env.PATH ?? '', HOME: options.home, ...options.env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      options.onStderr?.(stderr);
    });
    child.on('error', reject);
    child.on('close', (code) => {
      options.transcript?.push(stdout, stderr);
      resolve({ code: code ?? -1, stdout, stderr });
    });
  });
}
