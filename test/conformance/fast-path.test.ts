// The OpenAI → OpenAI pass-through is a fast path: events are relayed as received. It must say
// what the general path (upstream → IR → OpenAI encoder) says, chunk for chunk, on every fixture.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { openaiChatOutput } from '../../src/dialects/openai/chat-output.ts';
import type { ChatCall, TargetInfo } from '../../src/core/contracts/vendor-codec.ts';
import { chatOperationCodec } from '../../src/pipeline/chat-codec.ts';
import { IrStreamRelay } from '../../src/pipeline/ir-stream-relay.ts';
import { SseDecoder } from '../../src/core/sse.ts';
import { openaiChat } from '../../src/vendors/openai/chat.ts';
import { OpenAIStreamDecoder } from '../../src/vendors/openai/stream-decoder.ts';
import { play } from '../helpers/relay-play.ts';

const dir = new URL('../../src/vendors/openai/fixtures/', import.meta.url).pathname;
/** the fixture's own model is the one the provider was asked for (a recorded DeepSeek stream names deepseek-reasoner) */
function targetOf(text: string): TargetInfo {
  const model = /"model":"([^"]+)"/.exec(text)?.[1] ?? 'gpt-4o-mini';
  return { providerId: 'p', upstreamModel: model, publicModel: model };
}

/** What a client reads from a chunk: deltas without nulls, finish reasons, usage. */
function normalise(text: string): unknown[] {
  const decoder = new SseDecoder();
  return [...decoder.push(Buffer.from(text)), ...decoder.end()].map((e) => {
    if (e.data === '[DONE]') return '[DONE]';
    const chunk = JSON.parse(e.data) as { id: string; model: string; choices: Array<{ index: number; delta: Record<string, unknown>; finish_reason: unknown }>; usage?: unknown };
    return {
      id: chunk.id,
      model: chunk.model,
      choices: chunk.choices.map((c) => ({ index: c.index, delta: JSON.parse(JSON.stringify(c.delta, (_k, v: unknown) => (v === null ? undefined : v))) as unknown, finish_reason: c.finish_reason })),
      usage: usageNumbers(chunk.usage),
    };
  });
}

/** The usage a client bills by (detail objects differ in which zero fields they list). */
function usageNumbers(raw: unknown) {
  if (!raw) return null;
  const u = raw as { prompt_tokens: number; completion_tokens: number; total_tokens: number; prompt_tokens_details?: { cached_tokens?: number }; completion_tokens_details?: { reasoning_tokens?: number } };
  return [u.prompt_tokens, u.completion_tokens, u.total_tokens, u.prompt_tokens_details?.cached_tokens ?? 0, u.completion_tokens_details?.reasoning_tokens ?? 0];
}

for (const file of readdirSync(dir).filter((f) => f.endsWith('.sse'))) {
  for (const wantsUsage of [true, false]) {
    test(`${file} (usage ${wantsUsage ? 'asked' : 'not asked'}): pass-through = general path`, () => {
      const bytes = [new Uint8Array(readFileSync(join(dir, file)))];
      const target = targetOf(Buffer.from(bytes[0]!).toString());
      const call: ChatCall = { body: { model: 'gpt-4o-mini', messages: [] }, stream: true, clientWantsUsage: wantsUsage, maxOutputTokens: 100, created: 0 };
      const fast = play(chatOperationCodec(openaiChat, openaiChatOutput(wantsUsage)).relay!(call, target), bytes);
      const general = play(new IrStreamRelay(new OpenAIStreamDecoder(target, 0), openaiChatOutput(wantsUsage).streamEncoder()), bytes);
      assert.deepEqual(normalise(fast.text), normalise(general.text));
      assert.deepEqual(fast.usage, general.usage);
      assert.equal(fast.complete, general.complete);
      assert.equal(fast.delivered, general.delivered);
    });
  }
}
