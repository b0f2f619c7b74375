import { GatewayError } from '../core/errors.ts';
import { UpstreamBody } from './upstream-body.ts';

/** Reads a whole upstream body, refusing more than `limit` bytes (a misbehaving upstream must not exhaust memory). */
export async function readBody(body: AsyncIterable<Uint8Array>, limit = 256 * 1024 * 1024): Promise<Uint8Array> {
  if (body instanceof UpstreamBody) return body.readAll(limit);
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += chunk.byteLength;
    if (size > limit) {
      throw new GatewayError({ status: 502, type: 'server_error', message: 'The upstream answer was too large.', code: 'upstream_too_large' });
    }
    chunks.push(chunk);
  }
  return chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
}
