import { timingSafeEqual } from 'node:crypto';
import { authenticationError, modelNotFound, type GatewayError } from '../core/errors.ts';
import type { ApiKeyRecord } from '../store/repositories/api-keys.ts';
import { hashApiKey } from './key-hash.ts';

export interface Principal {
  key: ApiKeyRecord;
  accountId: string;
}

/**
 * Every live key, in memory, by hash and by id. Authentication never touches the database:
 * the state sync applies changes made on any instance within a second.
 */
export class KeyStore {
  /** each key with its digest's bytes, decoded once for the constant-time comparison */
  private readonly byHash = new Map<string, { record: ApiKeyRecord; digest: Buffer }>();
  private readonly byId = new Map<string, ApiKeyRecord>();

  apply(record: ApiKeyRecord): void {
    const previous = this.byId.get(record.id);
    if (previous) this.byHash.delete(previous.keyHash);
    if (record.revoked) {
      this.byId.delete(record.id);
      return;
    }
    this.byId.set(record.id, record);
    this.byHash.set(record.keyHash, { record, digest: Buffer.from(record.keyHash, 'hex') });
  }

  get(id: string): ApiKeyRecord | undefined {
    return this.byId.get(id);
  }

  get size(): number {
    return this.byId.size;
  }

  /**
   * Resolves a presented secret to its key. The map lookup is by SHA-256 digest, so timing
   * reveals nothing about stored keys; the final comparison is constant-time all the same.
   */
  authenticate(secret: string | undefined, now = Date.now()): Principal {
    if (!secret) throw authenticationError('Missing API key. Send it as "Authorization: Bearer sk-…".', 'missing_api_key');
    const digest = hashApiKey(secret);
    const stored = this.byHash.get(digest);
    if (!stored || !timingSafeEqual(stored.digest, Buffer.from(digest, 'hex'))) {
      throw authenticationError('Incorrect API key provided. Check the key in the console.');
    }
    const key = stored.record;
    const refusal = unusable(key, now);
    if (refusal) throw refusal;
    return { key, accountId: key.accountId };
  }

  /**
   * Why the key with this id may no longer be used (revoked, disabled, expired), or null: for work
   * that outlives one request, such as a realtime session, checked again as keys change.
   */
  refusalFor(id: string, now = Date.now()): GatewayError | null {
    const key = this.byId.get(id);
    if (!key) return authenticationError('This API key was revoked. Create a new key.', 'key_revoked');
    return unusable(key, now);
  }
}

/** the refusal of a known key that is disabled or expired */
function unusable(key: ApiKeyRecord, now: number): GatewayError | null {
  if (key.disabled) return authenticationError('This API key is disabled. Enable it or use another key.', 'key_disabled');
  if (key.expiresAt !== null && key.expiresAt <= now) {
    return authenticationError(`This API key expired at ${new Date(key.expiresAt).toISOString()}. Create a new key.`, 'key_expired');
  }
  return null;
}

/** A key restricted to some models sees the others as nonexistent (404). */
export function checkModelAllowed(principal: Principal, model: string): void {
  const allowed = principal.key.models;
  if (allowed !== null && !allowed.includes(model)) throw modelNotFound(model);
}
