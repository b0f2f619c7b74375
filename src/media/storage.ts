import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';

/**
 * Where the bytes the gateway serves itself live (stored images, finished videos). Local disk
 * by default; an object store implements the same three calls. Keys are the gateway's own
 * media ids (base62), never client input.
 */
export interface MediaStorage {
  /** stores the bytes under `key`; resolves with their size */
  put(key: string, data: Uint8Array | AsyncIterable<Uint8Array>): Promise<number>;
  /** undefined when nothing is stored under `key` (any more) */
  open(key: string): Promise<{ stream: Readable; size: number } | undefined>;
  remove(key: string): Promise<void>;
}

const SAFE_KEY = /^[A-Za-z0-9_-]{1,128}$/;

export class LocalDiskStorage implements MediaStorage {
  private readonly dir: string;
  private ready: Promise<unknown> | undefined;

  constructor(dir: string) {
    this.dir = dir;
  }

  async put(key: string, data: Uint8Array | AsyncIterable<Uint8Array>): Promise<number> {
    const path = this.pathOf(key);
    this.ready ??= mkdir(this.dir, { recursive: true });
    await this.ready;
    if (data instanceof Uint8Array) {
      await writeFile(path, data);
      return data.byteLength;
    }
    await pipeline(data, createWriteStream(path));
    return (await stat(path)).size;
  }

  async open(key: string): Promise<{ stream: Readable; size: number } | undefined> {
    const path = this.pathOf(key);
    try {
      const { size } = await stat(path);
      return { stream: createReadStream(path), size };
    } catch {
      return undefined;
    }
  }

  async remove(key: string): Promise<void> {
    await rm(this.pathOf(key), { force: true });
  }

  private pathOf(key: string): string {
    if (!SAFE_KEY.test(key)) throw new Error(`invalid media key ${JSON.stringify(key)}`);
    return join(this.dir, key);
  }
}
