/**
 * The bytes as a Buffer over the same memory, for Buffer's searches and decoding. Upstream
 * bodies arrive as Buffers already: they are returned as they are, since a new view of each costs
 * a typed array's construction (~60 ns, and its garbage) on every answer and streamed chunk.
 */
export function bufferView(bytes: Uint8Array): Buffer {
  return Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}
