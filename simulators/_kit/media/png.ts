// A PNG writer for the simulators: real, decodable images of the requested size, coloured from
// a seed so that different prompts give different pictures. Truecolour, 8 bits, no interlace.
import { crc32, deflateSync } from 'node:zlib';

const SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

function chunk(type: string, data: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, 'latin1');
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])), 0);
  return Buffer.concat([head, data, crc]);
}

/** Horizontal bands of two colours derived from `seed`. */
export function makePng(width: number, height: number, seed: number): Buffer {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 2; // colour type: truecolour
  const a = [seed & 0xff, (seed >>> 8) & 0xff, (seed >>> 16) & 0xff];
  const b = a.map((v) => 255 - v);
  const stride = 1 + width * 3;
  const rowA = Buffer.alloc(stride);
  const rowB = Buffer.alloc(stride);
  for (let x = 0; x < width; x++) {
    rowA.set(a, 1 + x * 3);
    rowB.set(b, 1 + x * 3);
  }
  const raw = Buffer.alloc(stride * height);
  const band = Math.max(1, Math.floor(height / 8));
  for (let y = 0; y < height; y++) (Math.floor(y / band) % 2 === 0 ? rowA : rowB).copy(raw, y * stride);
  return Buffer.concat([SIGNATURE, chunk('IHDR', ihdr), chunk('IDAT', deflateSync(raw)), chunk('IEND', Buffer.alloc(0))]);
}

/** Width and height from a PNG's header, or undefined when the bytes are not a PNG. */
export function pngSize(bytes: Uint8Array): { width: number; height: number } | undefined {
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (buf.length < 24 || !buf.subarray(0, 8).equals(SIGNATURE) || buf.toString('latin1', 12, 16) !== 'IHDR') return undefined;
  return { width: buf.readUInt32BE(16), height: buf.readUInt32BE(20) };
}
