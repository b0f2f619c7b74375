import { timingSafeEqual } from 'node:crypto';
import { authenticationError } from '../core/errors.ts';
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
  private readonly byHash = new Map<string, ApiKeyRecord>();
  private readonly byId = new Map<string, ApiKeyRecord>();

  apply(record: ApiKeyRecord): void {
    const previous = this.byId.get(record.id);
    if (previous) this.byHash.delete(previous.keyHash);
    if (record.revoked) {
      this.byId.delete(record.id);
      return;
    }
    this.byId.set(record.id, record);
    this.byHash.set(record.keyHash, record);
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
    const key = this.byHash.get(digest);
    if (!key || !timingSafeEqual(Buffer.from(key.keyHash, 'hex'), Buffer.from(digest, 'hex'))) {
      throw authenticationError('Incorrect API key provided. Check the key in the console.');
    }
    if (key.disabled) throw authenticationError('This API key is disabled. Enable it or use another key.', 'key_disabled');
    if (key.expiresAt !== null && key.expiresAt <= now) {
      throw authenticationError(`This API key expired at ${new Date(key.expiresAt).toISOString()}. Create a new key.`, 'key_expired');
    }
    return { key, accountId: key.accountId };
  }
}
