/** Defence in depth: a platform that echoes the credentials in its error body must not leak them into a result. */
import { isRecord } from '../json.js';

let lastSecrets: { authorization: string; secrets: readonly string[] } | undefined;

/** The Authorization value and its token-looking parts (e.g. after `Bearer ` or `token=`). */
export function secretsOf(authorization: string): string[] {
  if (lastSecrets?.authorization === authorization) return [...lastSecrets.secrets];
  const secrets = splitSecrets(authorization);
  lastSecrets = { authorization, secrets };
  return [...secrets];
}

function splitSecrets(authorization: string): string[] {
  const parts = authorization.split(/[\s=,"]+/).filter((part) => part.length >= 8);
  return [authorization, ...parts].sort((a, b) => b.length - a.length);
}

/** Every occurrence of a secret in the value's strings replaced by `[redacted]`. */
export function redact(value: unknown, secrets: readonly string[], depth = 0): unknown {
  if (secrets.length === 0 || depth > 20) return value;
  if (typeof value === 'string') {
    let out = value;
    for (const secret of secrets) if (secret && out.includes(secret)) out = out.split(secret).join('[redacted]');
    return out;
  }
  if (Array.isArray(value)) return value.map((item) => redact(item, secrets, depth + 1));
  if (isRecord(value)) {
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) out[key] = redact(item, secrets, depth + 1);
    return out;
  }
  return value;
}
