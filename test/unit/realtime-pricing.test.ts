// Audio token prices (realtime) in the price book, the next-response estimate, the usage reader,
// and the frame sniffing the relay's fast path relies on.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { costOf, toPricing } from '../../src/core/pricing.ts';
import { emptyUsage } from '../../src/core/usage.ts';
import { ResponseEstimator } from '../../src/realtime/estimate.ts';
import { audioAppendLength, parseEvent, sniffType } from '../../src/realtime/frames.ts';
import { readRealtimeUsage } from '../../src/realtime/usage.ts';

const realtime = toPricing({ input_per_mtok: 4, cached_input_per_mtok: 0.4, output_per_mtok: 16, audio_input_per_mtok: 32, cached_audio_input_per_mtok: 0.4, audio_output_per_mtok: 64 });

describe('costOf with audio tokens', () => {
  test('text, audio and cached subsets each at their price, one rounding', () => {
    const usage = { ...emptyUsage(), inputTokens: 250, cachedInputTokens: 128, audioInputTokens: 210, cachedAudioInputTokens: 128, outputTokens: 60, audioOutputTokens: 48 };
    // text in 40 (none cached), audio in 210 of which 128 cached, text out 12, audio out 48
    assert.equal(costOf(realtime, usage), 40 * 4000 + 82 * 32000 + 128 * 400 + 12 * 16000 + 48 * 64000);
  });

  test('without audio fields the cost is what it always was', () => {
    const usage = { ...emptyUsage(), inputTokens: 1000, cachedInputTokens: 400, outputTokens: 300 };
    assert.equal(costOf(realtime, usage), 600 * 4000 + 400 * 400 + 300 * 16000);
    const chat = toPricing({ input_per_mtok: 0.15, output_per_mtok: 0.6, cached_input_per_mtok: 0.075 });
    assert.equal(costOf(chat, { ...usage, audioInputTokens: 100, audioOutputTokens: 100 }), costOf(chat, usage), 'audio falls back to the text prices');
  });

  test('inconsistent subsets never price more or fewer tokens than reported', () => {
    const usage = { ...emptyUsage(), inputTokens: 100, cachedInputTokens: 90, audioInputTokens: 100, cachedAudioInputTokens: 0, outputTokens: 10, audioOutputTokens: 50 };
    // all input is audio, none of it cached: the 90 "cached" tokens cannot be text
    assert.equal(costOf(realtime, usage), 100 * 32000 + 10 * 64000);
  });
});

describe('ResponseEstimator', () => {
  test('the output limit at the dearer output price, then the context grows', () => {
    const estimator = new ResponseEstimator(4096);
    assert.equal(estimator.nextResponse(realtime), 4096 * 64000, 'audio output by default');
    estimator.noteSession({ type: 'realtime', output_modalities: ['text'], max_output_tokens: 100 });
    assert.equal(estimator.nextResponse(realtime), 100 * 16000);
    estimator.noteResponseDone(500, 100);
    assert.equal(estimator.nextResponse(realtime), 600 * 32000 + 100 * 16000, 'the context at the dearer input price');
    estimator.noteAudio(Math.ceil((48_000 * 4) / 3)); // one second of PCM16, base64
    assert.equal(estimator.nextResponse(realtime), 610 * 32000 + 100 * 16000);
    estimator.noteSession({ max_response_output_tokens: 'inf', modalities: ['text', 'audio'] });
    assert.equal(estimator.nextResponse(realtime), 610 * 32000 + 4096 * 64000, '"inf" means the default limit');
  });
});

describe('frames', () => {
  test('sniffType reads a leading type only', () => {
    assert.equal(sniffType('{"type":"input_audio_buffer.append","audio":"AAAA"}'), 'input_audio_buffer.append');
    assert.equal(sniffType('{"event_id":"e","type":"response.create"}'), undefined);
    assert.equal(sniffType('{"type":"a\\"b"}'), undefined);
    assert.equal(sniffType(' {"type":"x"}'), undefined);
  });

  test('audioAppendLength: the fast path only for frames whose audio is the last thing in them', () => {
    const frame = (text: string) => Buffer.from(text);
    assert.equal(audioAppendLength(frame('{"type":"input_audio_buffer.append","audio":"AAAABBBB"}')), 8);
    assert.equal(audioAppendLength(frame('{"event_id":"e1","type":"input_audio_buffer.append","audio":"AAAA"}')), 4);
    // a second "type" after the audio, or before it, would change what the upstream reads
    assert.equal(audioAppendLength(frame('{"type":"input_audio_buffer.append","audio":"AAAA","type":"session.update","session":{}}')), undefined);
    assert.equal(audioAppendLength(frame('{"type":"input_audio_buffer.append","type":"response.create","audio":"AAAA"}')), undefined);
    assert.equal(audioAppendLength(frame('{"type":"session.update","audio":"AAAA"}')), undefined);
    assert.equal(audioAppendLength(frame('{"type":"input_audio_buffer.append","audio":"AA\\"AA"}')), undefined);
  });

  test('parseEvent accepts only objects with a string type', () => {
    assert.deepEqual(parseEvent('{"type":"x","n":1}'), { type: 'x', n: 1 });
    assert.equal(parseEvent('[1]'), undefined);
    assert.equal(parseEvent('{"type":1}'), undefined);
    assert.equal(parseEvent('{not json'), undefined);
  });

  test('readRealtimeUsage: the response.done usage as the price book wants it', () => {
    const usage = readRealtimeUsage({
      usage: {
        total_tokens: 310,
        input_tokens: 250,
        output_tokens: 60,
        input_token_details: { text_tokens: 40, audio_tokens: 210, image_tokens: 0, cached_tokens: 128, cached_tokens_details: { text_tokens: 0, audio_tokens: 128, image_tokens: 0 } },
        output_token_details: { text_tokens: 12, audio_tokens: 48 },
      },
    });
    assert.deepEqual(usage, { inputTokens: 250, outputTokens: 60, cachedInputTokens: 128, cacheWriteTokens: 0, reasoningTokens: 0, units: 0, audioInputTokens: 210, cachedAudioInputTokens: 128, audioOutputTokens: 48 });
    assert.equal(readRealtimeUsage({ usage: null }), null);
  });
});
