/** Small helpers every server's settings resolution shares. */

/** A flag or variable with a value that cannot be used: bad usage (the CLI exits with 2). */
export class SettingsError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SettingsError';
  }
}

/** A trimmed value, or undefined when missing or blank. */
export function nonEmpty(value: string | undefined): string | undefined {
  const trimmed = value?.trim();
  return trimmed ? trimmed : undefined;
}

/** Throws a message naming the setting when the value is not an absolute URL. */
export function requireUrl(value: string, settingNames: string): string {
  try {
    new URL(value);
  } catch {
    throw new SettingsError(`${settingNames} is not a valid URL: "${value}"`);
  }
  return value;
}

/** A positive timeout in milliseconds from a flag or an environment variable (default 30 s). */
export function timeoutSetting(flag: number | undefined, envValue: string | undefined, envName: string): number {
  const timeoutMs = flag ?? (envValue ? Number(envValue) : 30_000);
  if (!Number.isFinite(timeoutMs) || timeoutMs <= 0) throw new SettingsError(`${envName} must be a positive number of milliseconds`);
  return timeoutMs;
}

/** The exit-code rule of every command: 2 for bad usage (a setting or a choice that cannot be used), 1 when the tool or the platform said no. */
export function exitCodeOf(error: unknown): 1 | 2 {
  return error instanceof Error && ['SettingsError', 'SelectionError', 'LogLevelError', 'ServerKeyFileError'].includes(error.name) ? 2 : 1;
}
