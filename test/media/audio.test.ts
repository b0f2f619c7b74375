// Speech in and out with the official client: transcriptions in every format (priced per second,
// the vendor's count first, else the file measured — never guessed), uploads past the limit
// refused with 413; speech in every format with its Content-Type, priced per character, and
// the spec's limits (4096 characters, voices, speed 0.25–4).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { parseBuffer } from 'music-metadata';
import OpenAI, { toFile } from 'openai';
import { makeAudio } from '../../simulators/_kit/media/audio.ts';
import type { Customer } from '../helpers/gateway.ts';
import { nano, startMediaGateway, type MediaGateway } from '../helpers/media.ts';
import { tapUsage, type UsageTap } from '../helpers/upstreams.ts';

let mg: MediaGateway;
let tap: UsageTap;
let customer: Customer;
let client: OpenAI;

before(async () => {
  // a small upload limit, to see the 413
  mg = await startMediaGateway({ env: { MODELGATE_MAX_UPLOAD_BYTES: String(400 * 1024) } });
  tap = tapUsage(mg.gateway);
  customer = await mg.customer(10);
  client = mg.client(customer);
});
after(async () => mg.closeAll());

const WAV = makeAudio('wav', 3.2); // 3.2 s, 24 kHz mono 16-bit: 153 644 bytes
const PER_SECOND = 100_000; // whisper-1: $0.0001 per second, in nano-dollars
const rowOf = () => tap.next((row) => row.account_id === customer.accountId);

describe('transcriptions', () => {
  test('json: the vendor reports the duration (4 s, rounded by the vendor) and that is what is charged', async () => {
    const result = await client.audio.transcriptions.create({ file: await toFile(WAV, 'speech.wav', { type: 'audio/wav' }), model: 'whisper-1' });
    assert.match(result.text, /Simulated transcript of speech\.wav/);
    const row = await rowOf();
    assert.equal(row.units, 4);
    assert.equal(row.cost_nano, 4 * PER_SECOND);
    const sent = mg.sim!.requests.findLast((r) => r.path === '/v1/audio/transcriptions');
    assert.equal((sent?.body as Record<string, unknown>).model, 'whisper-1');
  });

  test('verbose_json: segments and the exact duration; the vendor’s billed seconds (usage, 4 s) are what is charged', async () => {
    const result = await client.audio.transcriptions.create({ file: await toFile(WAV, 'speech.wav'), model: 'whisper-1', response_format: 'verbose_json', language: 'en' });
    assert.equal(result.duration, 3.2);
    assert.equal(result.segments?.length, 1);
    const row = await rowOf();
    assert.equal(row.cost_nano, 4 * PER_SECOND);
    assert.equal((mg.sim!.requests.findLast((r) => r.path === '/v1/audio/transcriptions')?.body as Record<string, unknown>).language, 'en');
  });

  for (const format of ['text', 'srt', 'vtt'] as const) {
    test(`${format}: text in the chosen format; the vendor says no length, so the file is measured (3.2 s)`, async () => {
      const result = (await client.audio.transcriptions.create({ file: await toFile(WAV, 'speech.wav'), model: 'whisper-1', response_format: format })) as unknown as string;
      assert.equal(typeof result, 'string');
      if (format === 'srt') assert.match(result, /^1\n00:00:00,000 --> 00:00:03,200\n/);
      if (format === 'vtt') assert.match(result, /^WEBVTT\n\n00:00:00\.000 --> 00:00:03\.200\n/);
      if (format === 'text') assert.match(result, /^Simulated transcript/);
      const row = await rowOf();
      assert.equal(row.units, 3.2);
      assert.equal(row.cost_nano, Math.round(3.2 * PER_SECOND));
    });
  }

  test('json without a reported duration: the measured one is charged', async () => {
    mg.sim!.enqueue({ kind: 'no-usage' });
    const mp3 = makeAudio('mp3', 6);
    await client.audio.transcriptions.create({ file: await toFile(mp3, 'clip.mp3', { type: 'audio/mpeg' }), model: 'gpt-4o-transcribe' });
    const row = await rowOf();
    assert.ok(Math.abs(row.units - 6) < 0.05, `measured ${row.units}`);
    assert.equal(row.cost_nano, Math.round(row.units * PER_SECOND));
  });

  test('rules: response_format per model, language, missing file or model; an unreadable file in a format without a length; none charged', async () => {
    const start = mg.balanceNano(customer.accountId);
    const bad = async (params: Record<string, unknown>, param: string) => {
      await assert.rejects(client.audio.transcriptions.create({ file: await toFile(WAV, 'speech.wav'), model: 'whisper-1', ...params } as never), (error: unknown) => {
        assert(error instanceof OpenAI.BadRequestError, String(error));
        assert.equal((error as { param?: string }).param, param);
        return true;
      });
    };
    await bad({ model: 'gpt-4o-transcribe', response_format: 'srt' }, 'response_format');
    await bad({ response_format: 'mp3' }, 'response_format');
    await bad({ language: 'english' }, 'language');
    await bad({ temperature: 2 }, 'temperature');
    await assert.rejects(
      client.audio.transcriptions.create({ file: await toFile(Buffer.from('definitely not audio'), 'notes.bin'), model: 'whisper-1', response_format: 'text' }),
      (error: unknown) => error instanceof OpenAI.BadRequestError && (error as { code?: string }).code === 'unreadable_audio',
    );
    const form = new FormData();
    form.set('model', 'whisper-1');
    const noFile = await fetch(`${mg.baseURL}/audio/transcriptions`, { method: 'POST', headers: { authorization: `Bearer ${customer.key}` }, body: form });
    assert.equal(noFile.status, 400);
    assert.equal(((await noFile.json()) as { error: { param: string } }).error.param, 'file');
    assert.equal(mg.balanceNano(customer.accountId), start);
  });

  test('an upload past MODELGATE_MAX_UPLOAD_BYTES is refused with 413 and nothing reaches the upstream', async () => {
    const before = mg.sim!.requests.length;
    const big = makeAudio('wav', 10); // 480 KB > 400 KB
    await assert.rejects(client.audio.transcriptions.create({ file: await toFile(big, 'long.wav'), model: 'whisper-1' }), (error: unknown) => {
      assert(error instanceof OpenAI.APIError);
      assert.equal(error.status, 413);
      assert.equal((error as { code?: string }).code, 'file_too_large');
      return true;
    });
    assert.equal(mg.sim!.requests.length, before);
  });

  test('an upstream failure is not charged', async () => {
    const start = mg.balanceNano(customer.accountId);
    mg.sim!.enqueue({ kind: 'status', status: 500 });
    await assert.rejects(client.audio.transcriptions.create({ file: await toFile(WAV, 'speech.wav'), model: 'whisper-1' }), OpenAI.InternalServerError);
    const row = await rowOf();
    assert.equal(row.cost_nano, 0);
    assert.equal(mg.balanceNano(customer.accountId), start);
    await mg.assertBillingInvariants(customer.accountId);
  });
});

describe('speech', () => {
  const TYPES = { mp3: 'audio/mpeg', opus: 'audio/opus', aac: 'audio/aac', flac: 'audio/flac', wav: 'audio/wav', pcm: 'audio/pcm' } as const;
  const PARSE_AS: Partial<Record<keyof typeof TYPES, string>> = { mp3: 'audio/mpeg', opus: 'audio/ogg', flac: 'audio/flac', wav: 'audio/wav', aac: 'audio/aac' };

  for (const format of Object.keys(TYPES) as Array<keyof typeof TYPES>) {
    test(`${format}: Content-Type ${TYPES[format]}, real ${format} bytes, priced per character`, async () => {
      const input = 'The quick brown fox jumps over the lazy dog.'; // 44 characters
      const response = await client.audio.speech.create({ model: 'tts-1', voice: 'alloy', input, response_format: format });
      assert.equal(response.headers.get('content-type'), TYPES[format]);
      const bytes = Buffer.from(await response.arrayBuffer());
      assert.ok(bytes.length > 0);
      if (PARSE_AS[format]) {
        const meta = await parseBuffer(bytes, { mimeType: PARSE_AS[format]! }, { duration: true });
        assert.ok((meta.format.duration ?? 0) > 2, `${format} duration ${meta.format.duration}`);
      } else {
        assert.equal(bytes.length % 2, 0, 'pcm is 16-bit samples');
      }
      const row = await rowOf();
      assert.equal(row.units, 44);
      assert.equal(row.cost_nano, 44 * 15_000); // $15 per million characters
    });
  }

  test('tts-1-hd costs twice as much; characters are counted as characters, not bytes', async () => {
    const input = 'héllo wörld ✓'; // 13 characters, 17 bytes
    const response = await client.audio.speech.create({ model: 'tts-1-hd', voice: 'nova', input, speed: 0.25 });
    await response.arrayBuffer();
    const row = await rowOf();
    assert.equal(row.units, 13);
    assert.equal(row.cost_nano, 13 * 30_000);
  });

  test('limits: input at most 4096 characters, voice among the model’s, speed 0.25–4; none charged', async () => {
    const start = mg.balanceNano(customer.accountId);
    const bad = async (params: Record<string, unknown>, param: string) => {
      await assert.rejects(client.audio.speech.create({ model: 'tts-1', voice: 'alloy', input: 'hi', ...params } as never), (error: unknown) => {
        assert(error instanceof OpenAI.BadRequestError, String(error));
        assert.equal((error as { param?: string }).param, param);
        return true;
      });
    };
    await bad({ input: 'a'.repeat(4097) }, 'input');
    await bad({ voice: 'robot' }, 'voice');
    await bad({ speed: 4.5 }, 'speed');
    await bad({ speed: 0.2 }, 'speed');
    await bad({ response_format: 'ogg' }, 'response_format');
    await bad({ instructions: 'whisper' }, 'instructions');
    await bad({ input: '' }, 'input');
    assert.equal(mg.balanceNano(customer.accountId), start);
    const ok = await client.audio.speech.create({ model: 'tts-1', voice: 'alloy', input: 'a'.repeat(4096), speed: 4 });
    await ok.arrayBuffer();
    assert.equal((await rowOf()).cost_nano, 4096 * 15_000);
  });

  test('an upstream that breaks off mid-audio: the client sees a cut answer, nothing is charged', async () => {
    const start = mg.balanceNano(customer.accountId);
    mg.sim!.enqueue({ kind: 'cut-stream', afterChunks: 1 });
    const failed = await client.audio.speech
      .create({ model: 'tts-1', voice: 'alloy', input: 'This answer will be cut in the middle.', response_format: 'wav' })
      .then((response) => response.arrayBuffer())
      .then(
        () => false,
        () => true,
      );
    assert.ok(failed, 'the client must not see a complete answer');
    const row = await rowOf();
    assert.equal(row.status, 502);
    assert.equal(row.cost_nano, 0);
    assert.equal(mg.balanceNano(customer.accountId), start);
    await mg.assertBillingInvariants(customer.accountId);
  });
});
