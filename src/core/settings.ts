/** Small helpers every server's settings resolution shares. */

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
    throw new Error(`${settingNames} is not a valid URL: "${value}"`);
  }
  return value;
}

/** A positive timeout in milliseconds from a flag or an environment variable (default 30 s). */
export function timeoutSetting(flag: number | undefined, envValue: string | undefined, envName: string): number {
  const timeoutMs = flag ?? (envValue ? Number(envValue) : 30_000);
  if (!Number.isFinite(timeoutMs) || timeoutMs <= 0) throw new Error(`${envName} must be a positive number of milliseconds`);
  return timeoutMs;
}
