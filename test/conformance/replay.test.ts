// Every recorded SSE fixture, through every relay that reads it, must give the same client bytes,
// the same usage and the same ending however the upstream bytes are split: at random offsets, at
// every byte, and inside every multi-byte UTF-8 character.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import type { ChatOutput } from '../../src/core/ir/output.ts';
import { openaiChatOutput } from '../../src/dialects/openai/chat-output.ts';
import { messagesOutput } from '../../src/dialects/messages/output.ts';
import { responsesOutput } from '../../src/dialects/responses/output.ts';
import { requestEcho } from '../../src/dialects/responses/response-object.ts';
import { googleOutput } from '../../src/dialects/google/output.ts';
import type { ChatCall, ChatCodec, StreamRelay, TargetInfo } from '../../src/core/contracts/vendor-codec.ts';
import { chatOperationCodec } from '../../src/pipeline/chat-codec.ts';
import { createPrng } from '../../simulators/_kit/http.ts';
import { anthropicChat } from '../../src/vendors/anthropic/chat.ts';
import { anthropicMessages } from '../../src/vendors/anthropic/messages.ts';
import { geminiChat } from '../../src/vendors/gemini/chat.ts';
import { openaiChat } from '../../src/vendors/openai/chat.ts';
import { play } from '../helpers/relay-play.ts';

const VENDORS = new URL('../../src/vendors/', import.meta.url).pathname;
const target: TargetInfo = { providerId: 'p', upstreamModel: 'upstream-model', publicModel: 'public-model' };

const chatCall = (clientWantsUsage: boolean): ChatCall => ({
  body: { model: 'public-model', messages: [] },
  stream: true,
  clientWantsUsage,
  maxOutputTokens: 1000,
  created: 1763700000,
});

/** The relay the pipeline composes for a family's chat codec and a client's output. */
const chatRelay = (chat: ChatCodec, output: ChatOutput, clientWantsUsage: boolean): StreamRelay => chatOperationCodec(chat, output).relay!(chatCall(clientWantsUsage), target);

type RelayFactory = () => StreamRelay;

const responses = () => responsesOutput(requestEcho({ model: 'public-model' }));

/** A Gemini-wire client's call (the Google dialect with `?alt=sse`): the pipeline relays a Gemini upstream's bytes as they came. */
const nativeGeminiCall = (): ChatCall => ({ ...chatCall(false), native: { wire: 'gemini', body: { contents: [] } } });

/** The relays a family's fixtures go through: to each client dialect, translated or passed through. */
const RELAYS: Record<string, Record<string, RelayFactory>> = {
  openai: {
    'pass-through to chat (usage asked)': () => chatRelay(openaiChat, openaiChatOutput(true), true),
    'pass-through to chat (usage not asked)': () => chatRelay(openaiChat, openaiChatOutput(false), false),
    'IR to messages': () => chatRelay(openaiChat, messagesOutput, false),
    'IR to responses': () => chatRelay(openaiChat, responses(), false),
    'IR to google (?alt=sse)': () => chatRelay(openaiChat, googleOutput('sse'), false),
    'IR to google (JSON array)': () => chatRelay(openaiChat, googleOutput('array'), false),
  },
  anthropic: {
    'IR to chat': () => chatRelay(anthropicChat, openaiChatOutput(true), true),
    'IR to messages': () => chatRelay(anthropicChat, messagesOutput, false),
    'IR to responses': () => chatRelay(anthropicChat, responses(), false),
    'IR to google (?alt=sse)': () => chatRelay(anthropicChat, googleOutput('sse'), false),
    'IR to google (JSON array)': () => chatRelay(anthropicChat, googleOutput('array'), false),
    'pass-through to messages': () => anthropicMessages.relay!({ body: {}, stream: true, nativeVersion: '2023-06-01', nativeBeta: undefined, toChat: () => chatCall(false) }, target),
  },
  gemini: {
    'IR to chat': () => chatRelay(geminiChat, openaiChatOutput(true), true),
    'IR to messages': () => chatRelay(geminiChat, messagesOutput, false),
    'IR to responses': () => chatRelay(geminiChat, responses(), false),
    // a JSON-array stream is written only by the IR path, whatever the family (decode-generate.ts)
    'IR to google (JSON array)': () => chatRelay(geminiChat, googleOutput('array'), false),
    'pass-through to google (?alt=sse)': () => chatOperationCodec(geminiChat, googleOutput('sse')).relay!(nativeGeminiCall(), target),
  },
};

function splitAt(bytes: Uint8Array, offsets: readonly number[]): Uint8Array[] {
  const sorted = [...new Set(offsets)].filter((o) => o > 0 && o < bytes.length).sort((a, b) => a - b);
  const parts: Uint8Array[] = [];
  let start = 0;
  for (const offset of sorted) {
    parts.push(bytes.subarray(start, offset));
    start = offset;
  }
  parts.push(bytes.subarray(start));
  return parts;
}

/** Offsets that fall inside a multi-byte UTF-8 character (after its first byte). */
function insideCharacters(bytes: Uint8Array): number[] {
  const offsets: number[] = [];
  for (let i = 0; i < bytes.length; i++) if ((bytes[i]! & 0xc0) === 0x80) offsets.push(i);
  return offsets;
}

for (const family of Object.keys(RELAYS)) {
  const dir = join(VENDORS, family, 'fixtures');
  const fixtures = readdirSync(dir).filter((f) => f.endsWith('.sse'));
  describe(`${family} fixtures replayed at random splits`, () => {
    test('there are fixtures, with multi-byte characters in them', () => {
      assert.ok(fixtures.length >= 2);
      for (const file of fixtures) assert.ok(insideCharacters(readFileSync(join(dir, file))).length > 0, `${file} has multi-byte characters`);
    });
    for (const file of fixtures) {
      const bytes = new Uint8Array(readFileSync(join(dir, file)));
      for (const [name, relay] of Object.entries(RELAYS[family]!)) {
        test(`${file} → ${name}`, () => {
          const whole = play(relay(), [bytes]);
          assert.ok(whole.text.length > 0, 'something reaches the client');
          assert.ok(whole.complete || whole.failed, 'the fixture ends properly or fails in-band');
          const random = createPrng(bytes.length * 31 + name.length);
          for (let round = 0; round < 150; round++) {
            const cuts = Array.from({ length: 1 + Math.floor(random() * 6) }, () => Math.floor(random() * bytes.length));
            assert.deepEqual(play(relay(), splitAt(bytes, cuts)), whole, `split at ${cuts.join(',')}`);
          }
          const inside = insideCharacters(bytes);
          for (let i = 0; i < inside.length; i += 3) assert.deepEqual(play(relay(), splitAt(bytes, [inside[i]!])), whole, `split inside a character at ${inside[i]}`);
          assert.deepEqual(play(relay(), splitAt(bytes, Array.from({ length: bytes.length }, (_, i) => i))), whole, 'one byte at a time');
        });
      }
    }
  });
}
