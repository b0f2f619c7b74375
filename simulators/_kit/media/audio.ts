// Audio writers for the simulators: valid files of a requested length in every speech format,
// holding silence (or, for WAV/PCM, a quiet tone). Each follows its format's specification
// closely enough that media libraries read the duration back:
//   wav  RIFF/WAVE, PCM 16-bit mono 24 kHz          pcm  the same samples without a header
//   mp3  MPEG-1 Layer III frames, 128 kb/s 44.1 kHz mono, all-zero side info (silent frames)
//   flac STREAMINFO + frames of one CONSTANT subframe (RFC 9639), CRC-8/CRC-16 as specified
//   opus Ogg pages (RFC 3533) with OpusHead, OpusTags and one-byte (DTX) 20 ms packets (RFC 7845)
//   aac  ADTS frames of AAC-LC holding a silent single-channel element

export type AudioFormat = 'mp3' | 'opus' | 'aac' | 'flac' | 'wav' | 'pcm';

const RATE = 24_000;

export function makeAudio(format: AudioFormat, seconds: number): Buffer {
  switch (format) {
    case 'wav':
      return wav(tone(seconds));
    case 'pcm':
      return tone(seconds);
    case 'mp3':
      return mp3(seconds);
    case 'flac':
      return flac(seconds);
    case 'opus':
      return oggOpus(seconds);
    case 'aac':
      return aac(seconds);
    default: {
      const unknown: never = format;
      throw new Error(`unknown audio format ${String(unknown)}`);
    }
  }
}

/** 16-bit little-endian mono samples of a quiet 440 Hz tone. */
function tone(seconds: number): Buffer {
  const count = Math.round(seconds * RATE);
  const out = Buffer.alloc(count * 2);
  for (let i = 0; i < count; i++) out.writeInt16LE(Math.round(1000 * Math.sin((2 * Math.PI * 440 * i) / RATE)), i * 2);
  return out;
}

export function wav(pcm: Buffer, sampleRate = RATE): Buffer {
  const head = Buffer.alloc(44);
  head.write('RIFF', 0, 'latin1');
  head.writeUInt32LE(36 + pcm.length, 4);
  head.write('WAVEfmt ', 8, 'latin1');
  head.writeUInt32LE(16, 16);
  head.writeUInt16LE(1, 20); // PCM
  head.writeUInt16LE(1, 22); // mono
  head.writeUInt32LE(sampleRate, 24);
  head.writeUInt32LE(sampleRate * 2, 28);
  head.writeUInt16LE(2, 32);
  head.writeUInt16LE(16, 34);
  head.write('data', 36, 'latin1');
  head.writeUInt32LE(pcm.length, 40);
  return Buffer.concat([head, pcm]);
}

function mp3(seconds: number): Buffer {
  const frameBytes = 417; // 144 × 128000 / 44100, no padding
  const frames = Math.max(1, Math.round((seconds * 44_100) / 1152));
  const frame = Buffer.alloc(frameBytes);
  frame.set([0xff, 0xfb, 0x90, 0xc0]);
  return Buffer.concat(Array.from({ length: frames }, () => frame));
}

class Bits {
  private readonly bytes: number[] = [];
  private acc = 0n;
  private n = 0;
  put(value: number | bigint, width: number): void {
    this.acc = (this.acc << BigInt(width)) | (BigInt(value) & ((1n << BigInt(width)) - 1n));
    this.n += width;
    while (this.n >= 8) {
      this.n -= 8;
      this.bytes.push(Number((this.acc >> BigInt(this.n)) & 0xffn));
    }
    this.acc &= (1n << BigInt(this.n)) - 1n;
  }
  done(): Buffer {
    if (this.n > 0) this.put(0, 8 - this.n);
    return Buffer.from(this.bytes);
  }
}

function crc8(data: Buffer): number {
  let crc = 0;
  for (const byte of data) {
    crc ^= byte;
    for (let i = 0; i < 8; i++) crc = crc & 0x80 ? ((crc << 1) ^ 0x07) & 0xff : (crc << 1) & 0xff;
  }
  return crc;
}

function crc16(data: Buffer): number {
  let crc = 0;
  for (const byte of data) {
    crc ^= byte << 8;
    for (let i = 0; i < 8; i++) crc = crc & 0x8000 ? ((crc << 1) ^ 0x8005) & 0xffff : (crc << 1) & 0xffff;
  }
  return crc;
}

/** The frame number of a fixed-blocksize FLAC stream, UTF-8 style. */
function utf8Number(value: number): number[] {
  if (value < 0x80) return [value];
  if (value < 0x800) return [0xc0 | (value >> 6), 0x80 | (value & 0x3f)];
  return [0xe0 | (value >> 12), 0x80 | ((value >> 6) & 0x3f), 0x80 | (value & 0x3f)];
}

function flac(seconds: number): Buffer {
  const block = 4096;
  const frames = Math.max(1, Math.round((seconds * RATE) / block));
  const info = new Bits();
  info.put(block, 16);
  info.put(block, 16);
  info.put(0, 24);
  info.put(0, 24);
  info.put(RATE, 20);
  info.put(0, 3); // channels − 1
  info.put(15, 5); // bits per sample − 1
  info.put(BigInt(frames * block), 36);
  const streamInfo = Buffer.concat([info.done(), Buffer.alloc(16)]);
  const parts: Buffer[] = [Buffer.from('fLaC', 'latin1'), Buffer.from([0x80, 0, 0, 34]), streamInfo];
  for (let i = 0; i < frames; i++) {
    const header = Buffer.from([0xff, 0xf8, 0xc0, 0x08, ...utf8Number(i)]);
    const withCrc8 = Buffer.concat([header, Buffer.from([crc8(header)])]);
    // one CONSTANT subframe of value 0 (16 bits)
    const body = Buffer.concat([withCrc8, Buffer.from([0x00, 0x00, 0x00])]);
    const footer = Buffer.alloc(2);
    footer.writeUInt16BE(crc16(body), 0);
    parts.push(body, footer);
  }
  return Buffer.concat(parts);
}

const OGG_CRC = (() => {
  const table = new Uint32Array(256);
  for (let i = 0; i < 256; i++) {
    let r = i << 24;
    for (let j = 0; j < 8; j++) r = r & 0x80000000 ? (r << 1) ^ 0x04c11db7 : r << 1;
    table[i] = r >>> 0;
  }
  return table;
})();

function oggPage(packets: Buffer[], granule: bigint, sequence: number, type: number): Buffer {
  const segments: number[] = [];
  for (const p of packets) {
    let left = p.length;
    while (left >= 255) {
      segments.push(255);
      left -= 255;
    }
    segments.push(left);
  }
  const head = Buffer.alloc(27 + segments.length);
  head.write('OggS', 0, 'latin1');
  head[5] = type;
  head.writeBigUInt64LE(granule, 6);
  head.writeUInt32LE(0x4d47, 14); // stream serial
  head.writeUInt32LE(sequence, 18);
  head[26] = segments.length;
  head.set(segments, 27);
  const page = Buffer.concat([head, ...packets]);
  let crc = 0;
  for (const byte of page) crc = ((crc << 8) ^ OGG_CRC[((crc >>> 24) ^ byte) & 0xff]!) >>> 0;
  page.writeUInt32LE(crc, 22);
  return page;
}

function oggOpus(seconds: number): Buffer {
  const preSkip = 312;
  const head = Buffer.alloc(19);
  head.write('OpusHead', 0, 'latin1');
  head[8] = 1;
  head[9] = 1;
  head.writeUInt16LE(preSkip, 10);
  head.writeUInt32LE(RATE, 12);
  const vendor = Buffer.from('modelgate simulator', 'utf8');
  const tags = Buffer.alloc(8 + 4 + vendor.length + 4);
  tags.write('OpusTags', 0, 'latin1');
  tags.writeUInt32LE(vendor.length, 8);
  vendor.copy(tags, 12);
  const pages = [oggPage([head], 0n, 0, 0x02), oggPage([tags], 0n, 1, 0)];
  const packets = Math.max(1, Math.round(seconds * 50)); // 20 ms each
  const perPage = 50;
  for (let done = 0, seq = 2; done < packets; seq++) {
    const count = Math.min(perPage, packets - done);
    done += count;
    const granule = BigInt(preSkip + done * 960);
    pages.push(oggPage(Array.from({ length: count }, () => Buffer.from([0xf8])), granule, seq, done === packets ? 0x04 : 0));
  }
  return Buffer.concat(pages);
}

function aac(seconds: number): Buffer {
  const payload = new Bits();
  payload.put(0, 3); // single_channel_element
  payload.put(0, 4); // element_instance_tag
  payload.put(100, 8); // global_gain
  payload.put(0, 11); // ics_info: long window, max_sfb 0, no prediction
  payload.put(0, 3); // no pulse, tns, gain control data
  payload.put(7, 3); // ID_END
  const raw = payload.done();
  const length = 7 + raw.length;
  const header = new Bits();
  header.put(0xfff, 12);
  header.put(0, 1); // MPEG-4
  header.put(0, 2);
  header.put(1, 1); // no CRC
  header.put(1, 2); // AAC LC
  header.put(6, 4); // 24 kHz
  header.put(0, 1);
  header.put(1, 3); // mono
  header.put(0, 4);
  header.put(length, 13);
  header.put(0x7ff, 11);
  header.put(0, 2);
  const frame = Buffer.concat([header.done(), raw]);
  const frames = Math.max(1, Math.round((seconds * RATE) / 1024));
  return Buffer.concat(Array.from({ length: frames }, () => frame));
}
