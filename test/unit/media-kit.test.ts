// Units of the media machinery: pricing by meter, link signatures, the multipart writer (read
// back by the simulators' parser), and the duration measurement of the simulators' files.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { priceOf, toPricing } from '../../src/core/pricing.ts';
import { emptyUsage } from '../../src/core/usage.ts';
import { measureBytes, measureDuration } from '../../src/media/audio-duration.ts';
import { LinkSigner } from '../../src/media/signing.ts';
import { multipartBody } from '../../src/vendors/_kit/multipart.ts';
import { makeAudio } from '../../simulators/_kit/media/audio.ts';
import { makeMp4 } from '../../simulators/_kit/media/mp4.ts';
import { parseMultipart } from '../../simulators/_kit/multipart.ts';

const units = (n: number, extra: Partial<ReturnType<typeof emptyUsage>> = {}) => ({ ...emptyUsage(), units: n, ...extra });

describe('priceOf', () => {
  const image = toPricing({ per_image: { standard: { '1024x1024': 0.04, '*': 0.05 }, hd: { '1024x1024': 0.08 }, '*': { '*': 0.01 } }, per_request: 0.001 });
  test('images: count × the price of their quality and size, falling back to * rows and columns', () => {
    assert.equal(priceOf(image, units(3), { unit: 'images', quality: 'hd', size: '1024x1024' }), 3 * 80_000_000 + 1_000_000);
    assert.equal(priceOf(image, units(1), { unit: 'images', quality: 'standard', size: '512x512' }), 50_000_000 + 1_000_000);
    assert.equal(priceOf(image, units(2), { unit: 'images', quality: 'low', size: '1x1' }), 2 * 10_000_000 + 1_000_000);
    assert.equal(priceOf(image, units(0), { unit: 'images', quality: 'hd', size: '1024x1024' }), 1_000_000);
  });
  test('seconds and characters: exact, one rounding', () => {
    const audio = toPricing({ per_second: 0.0001, per_mchar: 15 });
    assert.equal(priceOf(audio, units(3.2), { unit: 'seconds' }), 320_000);
    assert.equal(priceOf(audio, units(44), { unit: 'characters' }), 660_000);
    assert.equal(priceOf(audio, units(44), { unit: 'seconds' }), 4_400_000, 'the meter decides what units are');
    assert.equal(priceOf(audio, units(44)), 0, 'tokens only by default');
  });
  test('requests: per_request once per unit, at least once; tokens on top', () => {
    const rerank = toPricing({ per_request: 0.002, input_per_mtok: 1 });
    assert.equal(priceOf(rerank, units(0), { unit: 'requests' }), 2_000_000);
    assert.equal(priceOf(rerank, units(3, { inputTokens: 1000 }), { unit: 'requests' }), 6_000_000 + 1_000_000);
  });
});

describe('LinkSigner', () => {
  const signer = new LinkSigner('secret');
  test('a genuine link checks out until its time, then is expired; any change is invalid', () => {
    const sig = signer.sign('img_1', 2000);
    assert.equal(signer.check('img_1', '2000', sig, 1999), 'ok');
    assert.equal(signer.check('img_1', '2000', sig, 2000), 'expired');
    assert.equal(signer.check('img_2', '2000', sig, 1000), 'invalid');
    assert.equal(signer.check('img_1', '2001', sig, 1000), 'invalid');
    assert.equal(signer.check('img_1', '2000', `${sig}x`, 1000), 'invalid');
    assert.equal(signer.check('img_1', undefined, sig, 1000), 'invalid');
    assert.equal(signer.check('img_1', '2000', new LinkSigner('other').sign('img_1', 2000), 1000), 'invalid');
  });
});

describe('multipartBody', () => {
  test('fields and files (from disk and from memory) read back exactly; the announced length is the real one', async (t) => {
    const dir = mkdtempSync(join(tmpdir(), 'modelgate-mp-'));
    t.after(() => rmSync(dir, { recursive: true, force: true }));
    const onDisk = Buffer.from(Array.from({ length: 70_000 }, (_, i) => i % 251));
    writeFileSync(join(dir, 'a.bin'), onDisk);
    const form = multipartBody(
      [
        ['model', 'whisper-1'],
        ['timestamp_granularities[]', 'word'],
        ['timestamp_granularities[]', 'segment'],
        ['prompt', 'quote " and\r\nnewline'],
      ],
      [
        { field: 'file', filename: 'a "b".bin', contentType: 'application/octet-stream', path: join(dir, 'a.bin'), size: onDisk.length },
        { field: 'mask', filename: 'm.png', contentType: 'image/png', bytes: Buffer.from('PNGDATA') },
      ],
    );
    const chunks: Buffer[] = [];
    for await (const chunk of form.body) chunks.push(Buffer.from(chunk));
    const body = Buffer.concat(chunks);
    assert.equal(body.length, form.length);
    const parsed = parseMultipart(body, form.contentType);
    assert(parsed);
    assert.deepEqual(parsed.fields.get('timestamp_granularities[]'), ['word', 'segment']);
    assert.equal(parsed.field('prompt'), 'quote " and\r\nnewline');
    assert.deepEqual(parsed.files[0]!.data, onDisk);
    assert.equal(parsed.files[1]!.data.toString(), 'PNGDATA');
    assert.equal(parsed.files[1]!.contentType, 'image/png');
  });
});

describe('duration measurement', () => {
  test('files of each audio container are measured; an unreadable file is null, not a guess', async (t) => {
    const dir = mkdtempSync(join(tmpdir(), 'modelgate-dur-'));
    t.after(() => rmSync(dir, { recursive: true, force: true }));
    for (const [format, ext] of [['wav', 'wav'], ['mp3', 'mp3'], ['flac', 'flac'], ['opus', 'ogg']] as const) {
      const path = join(dir, `a.${ext}`);
      writeFileSync(path, makeAudio(format, 5));
      const seconds = await measureDuration(path);
      assert.ok(seconds !== null && Math.abs(seconds - 5) < 0.1, `${format}: ${seconds}`);
    }
    writeFileSync(join(dir, 'junk.bin'), Buffer.from('not audio at all'));
    assert.equal(await measureDuration(join(dir, 'junk.bin')), null);
    assert.equal(await measureBytes(makeMp4(12, 1280, 720), 'video/mp4'), 12);
  });
});
