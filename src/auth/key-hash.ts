import { createHash } from 'node:crypto';

/**
 * API keys carry ~285 random bits, so a single SHA-256 is a sound way to store them: there is
 * nothing to brute-force, and it keeps authentication to one hash per request.
 */
export function hashApiKey(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}

/** What the console and the admin API show: enough to recognise a key, never enough to use it. */
export function keyHint(key: string): string {
  return `${key.slice(0, 6)}…${key.slice(-4)}`;
}
