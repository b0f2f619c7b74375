import type { Readable } from 'node:stream';
import { newId } from '../core/ids.ts';
import type { MediaObjectsRepository } from '../store/repositories/media-objects.ts';
import type { MediaKind, MediaObjectRow } from '../store/schema.ts';
import type { LinkSigner } from './signing.ts';
import type { MediaStorage } from './storage.ts';

const EXTENSIONS: Readonly<Record<string, string>> = {
  'image/png': 'png',
  'image/jpeg': 'jpg',
  'image/webp': 'webp',
  'video/mp4': 'mp4',
};

export interface MediaStoreOptions {
  publicBaseUrl: string;
  /** how long a stored object (and every link to it) lives */
  ttlSeconds: number;
}

/**
 * Bytes the gateway hands out as links: the metadata row in the database (so any instance can
 * check a link), the bytes in the storage, the link signed to expire with the object.
 */
export class MediaStore {
  private readonly repo: MediaObjectsRepository;
  private readonly storage: MediaStorage;
  private readonly signer: LinkSigner;
  private readonly options: MediaStoreOptions;

  constructor(repo: MediaObjectsRepository, storage: MediaStorage, signer: LinkSigner, options: MediaStoreOptions) {
    this.repo = repo;
    this.storage = storage;
    this.signer = signer;
    this.options = options;
  }

  /** Where links point; set after listening when the port was chosen by the system (PORT=0). */
  setPublicBaseUrl(url: string): void {
    this.options.publicBaseUrl = url.replace(/\/+$/, '');
  }

  get ttlSeconds(): number {
    return this.options.ttlSeconds;
  }

  async save(input: { accountId: string; kind: MediaKind; contentType: string; data: Uint8Array | AsyncIterable<Uint8Array> }, now = Date.now()): Promise<MediaObjectRow> {
    const id = newId(input.kind === 'image' ? 'img' : 'vid');
    const bytes = await this.storage.put(id, input.data);
    const row: MediaObjectRow = {
      id,
      account_id: input.accountId,
      kind: input.kind,
      content_type: input.contentType,
      bytes,
      storage_key: id,
      created_at: now,
      expires_at: now + this.options.ttlSeconds * 1000,
    };
    await this.repo.insert(row);
    return row;
  }

  /** The signed link; it stops working when the object expires. */
  link(row: MediaObjectRow): string {
    const expires = Math.floor(row.expires_at / 1000);
    const ext = EXTENSIONS[row.content_type];
    return `${this.options.publicBaseUrl}/media/${row.id}${ext ? `.${ext}` : ''}?expires=${expires}&sig=${this.signer.sign(row.id, expires)}`;
  }

  /** A signed link's target: the checked object, or why not. */
  async resolve(id: string, expires: string | undefined, sig: string | undefined, now = Date.now()): Promise<MediaObjectRow | 'invalid' | 'expired' | 'gone'> {
    const verdict = this.signer.check(id, expires, sig, Math.floor(now / 1000));
    if (verdict !== 'ok') return verdict;
    const row = await this.repo.get(id);
    if (!row) return 'gone';
    if (row.expires_at <= now) return 'expired';
    return row;
  }

  async get(id: string): Promise<MediaObjectRow | undefined> {
    return this.repo.get(id);
  }

  async open(row: MediaObjectRow): Promise<{ stream: Readable; size: number } | undefined> {
    return this.storage.open(row.storage_key);
  }

  /** Deletes expired objects (bytes first, then the row); returns how many went. */
  async sweep(now = Date.now(), batch = 100): Promise<number> {
    const rows = await this.repo.expired(now, batch);
    for (const row of rows) {
      await this.storage.remove(row.storage_key);
      await this.repo.remove(row.id);
    }
    return rows.length;
  }
}
