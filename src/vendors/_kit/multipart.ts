import { randomBytes } from 'node:crypto';
import { createReadStream } from 'node:fs';
import type { MediaFile } from '../../core/ir/media.ts';

export interface MultipartBody {
  contentType: string;
  /** exact byte length, so the upstream gets a Content-Length instead of a chunked body */
  length: number;
  /**
   * The whole body, read from disk as it is consumed; each iteration starts afresh (an iterable,
   * not an iterator), so a request that must be sent again can be.
   */
  body: AsyncIterable<Uint8Array>;
}

const CRLF = '\r\n';

const quote = (value: string) => value.replaceAll('\\', '\\\\').replaceAll('"', '\\"').replaceAll(/[\r\n]/g, ' ');

/** Builds a multipart/form-data body for an upstream: text fields first, then files. */
export function multipartBody(fields: ReadonlyArray<readonly [string, string]>, files: readonly MediaFile[]): MultipartBody {
  const boundary = `----modelgate${randomBytes(12).toString('hex')}`;
  const head: Buffer[] = fields.map(([name, value]) =>
    Buffer.from(`--${boundary}${CRLF}Content-Disposition: form-data; name="${quote(name)}"${CRLF}${CRLF}${value}${CRLF}`, 'utf8'),
  );
  const fileHeads = files.map((file) =>
    Buffer.from(
      `--${boundary}${CRLF}Content-Disposition: form-data; name="${quote(file.field)}"; filename="${quote(file.filename)}"${CRLF}Content-Type: ${file.contentType}${CRLF}${CRLF}`,
      'utf8',
    ),
  );
  const closing = Buffer.from(`--${boundary}--${CRLF}`, 'utf8');
  const crlf = Buffer.from(CRLF, 'utf8');
  const sizeOf = (file: MediaFile) => ('bytes' in file ? file.bytes.byteLength : file.size);
  const length =
    head.reduce((n, b) => n + b.length, 0) + fileHeads.reduce((n, b, i) => n + b.length + sizeOf(files[i]!) + crlf.length, 0) + closing.length;

  async function* body(): AsyncGenerator<Uint8Array> {
    for (const part of head) yield part;
    for (const [i, file] of files.entries()) {
      yield fileHeads[i]!;
      if ('bytes' in file) yield file.bytes;
      else for await (const chunk of createReadStream(file.path)) yield chunk as Buffer;
      yield crlf;
    }
    yield closing;
  }
  return { contentType: `multipart/form-data; boundary=${boundary}`, length, body: { [Symbol.asyncIterator]: body } };
}
