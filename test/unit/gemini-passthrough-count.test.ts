// The Gemini pass-through counts what the model wrote — thought summaries too — when the vendor
// reports no usage, as the IR path does: a stream cut before its usage is charged for its thoughts.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import type { ChatCall, TargetInfo } from '../../src/core/contracts/vendor-codec.ts';
import { countTextTokens } from '../../src/core/tokens/token-counter.ts';
import { googleOutput } from '../../src/dialects/google/output.ts';
import { IrStreamRelay } from '../../src/pipeline/ir-stream-relay.ts';
import { geminiPassthrough } from '../../src/vendors/gemini/passthrough.ts';
import { GeminiStreamDecoder } from '../../src/vendors/gemini/stream-decoder.ts';
import { play } from '../helpers/relay-play.ts';

const target: TargetInfo = { providerId: 'p', upstreamModel: 'gemini-2.5-flash', publicModel: 'gemini-2.5-flash' };
const call = { body: {}, stream: true, clientWantsUsage: true, maxOutputTokens: 100, created: 0, native: { wire: 'gemini', body: {} } } as unknown as ChatCall & { native: { wire: string; body: Record<string, unknown> } };
const fixture = new Uint8Array(readFileSync(new URL('../../src/vendors/gemini/fixtures/stream-thoughts.sse', import.meta.url)));

test('streamed: the pass-through delivers as many output tokens as the IR path, thoughts included', () => {
  const fast = play(geminiPassthrough.relay(call, target), [fixture]);
  const general = play(new IrStreamRelay(new GeminiStreamDecoder(target, 0), googleOutput('sse', true).streamEncoder()), [fixture]);
  assert.ok(general.delivered > 0);
  assert.equal(fast.delivered, general.delivered);
});

test('whole answer without usage: the thought text is counted', () => {
  const answer = { candidates: [{ content: { role: 'model', parts: [{ text: 'Weighing the options carefully. ', thought: true }, { text: 'Yes.' }] }, finishReason: 'STOP' }] };
  const decoded = geminiPassthrough.decode(call, target, new TextEncoder().encode(JSON.stringify(answer)));
  assert.equal(decoded.usage, null);
  assert.equal(decoded.outputText, 'Weighing the options carefully. Yes.');
  assert.ok(countTextTokens(decoded.outputText!) > countTextTokens('Yes.'));
});
