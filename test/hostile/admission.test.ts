// Admission before work (issue 17, point 3), from the finding: "the o200k tokenizer is super-linear
// on long runs without spaces and runs before the balance and rate-limit checks;
// /v1/messages/count_tokens is free and not rate limited. One 160 KB request from a key with a $0
// balance stalled /healthz for 4.4 s." A refused request must be refused before its prompt is
// tokenised (the tokenizer's use is read from its counter, never timed), count_tokens counts
// against the key's requests per minute, and each refusal comes in the route's own envelope.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { tokenizerUse } from '../../src/core/tokens/token-counter.ts';
import { startTestGateway, type Customer, type TestGateway } from '../helpers/gateway.ts';

let tg: TestGateway;
before(async () => {
  tg = await startTestGateway();
});
after(async () => {
  await tg.close();
});

const MODEL = 'gpt-4o-mini';
/** 160 KB without a space: one pre-token, seconds of tokenizer for the old counter */
const RUN = (() => {
  let x = 7;
  let text = '';
  for (let i = 0; i < 160_000; i++) {
    x = (x * 1103515245 + 12345) & 0x7fffffff;
    text += String.fromCharCode(97 + (x % 26));
  }
  return text;
})();

const openai = (c: Customer) => new OpenAI({ apiKey: c.key, baseURL: tg.baseURL, maxRetries: 0 });
const anthropic = (c: Customer) => new Anthropic({ apiKey: c.key, baseURL: tg.origin, maxRetries: 0 });
const upstreamCalls = () => tg.sim!.requests.length;

async function rejected<T extends Error>(promise: Promise<unknown>, cls: new (...args: never[]) => T): Promise<T> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof cls, `expected ${cls.name}, got ${String(error)}`);
    return error;
  }
  assert.fail(`expected ${cls.name}, the request succeeded`);
}

describe('a key whose account has $0', () => {
  test('160 KB without a space to chat, messages and count_tokens: 402 in each dialect, nothing tokenised, /healthz answers meanwhile', async () => {
    const broke = await tg.customer(0);
    const tokenised = tokenizerUse.chars;
    const sent = upstreamCalls();
    const messages = [{ role: 'user' as const, content: RUN }];
    const [chat, native, counted, health] = await Promise.all([
      rejected(openai(broke).chat.completions.create({ model: MODEL, messages }), OpenAI.APIError),
      rejected(anthropic(broke).messages.create({ model: MODEL, max_tokens: 16, messages }), Anthropic.APIError),
      rejected(anthropic(broke).messages.countTokens({ model: MODEL, messages }), Anthropic.APIError),
      fetch(`${tg.origin}/healthz`),
    ]);
    assert.equal(chat.status, 402);
    assert.equal((chat.error as { type?: string }).type, 'insufficient_quota');
    for (const error of [native, counted]) {
      assert.equal(error.status, 402);
      assert.deepEqual(Object.keys(error.error as object).sort(), ['error', 'type'], 'the messages envelope');
      assert.equal((error.error as { error: { type: string } }).error.type, 'insufficient_quota');
    }
    assert.equal(health.status, 200);
    assert.equal(tokenizerUse.chars, tokenised, 'no character of a refused request reached the tokenizer');
    assert.equal(upstreamCalls(), sent);
  });

  test('a key at its spend cap is refused the same way, before its prompt is counted', async () => {
    const capped = await tg.customer(5, { max_spend_usd: 0 });
    const tokenised = tokenizerUse.chars;
    const error = await rejected(anthropic(capped).messages.create({ model: MODEL, max_tokens: 16, messages: [{ role: 'user', content: RUN }] }), Anthropic.APIError);
    assert.equal(error.status, 402);
    assert.match((error.error as { error: { message: string } }).error.message, /spend cap/);
    assert.equal(tokenizerUse.chars, tokenised);
  });
});

describe('requests per minute', () => {
  test('a key past its rpm is refused (429) before its 160 KB prompt is tokenised', async () => {
    const limited = await tg.customer(5, { rpm: 1 });
    // the minute's one request: a 60 KB prompt, counted off the event loop, served and billed
    const prose = 'The gateway counts a large prompt in its tokenizer thread, never on the event loop. '.repeat(720);
    const served = await anthropic(limited).messages.create({ model: MODEL, max_tokens: 8, messages: [{ role: 'user', content: prose }] });
    assert.ok(served.usage.input_tokens > 10_000);
    await tg.assertBillingInvariants(limited.accountId);
    const tokenised = tokenizerUse.chars;
    const sent = upstreamCalls();
    const error = await rejected(anthropic(limited).messages.create({ model: MODEL, max_tokens: 8, messages: [{ role: 'user', content: RUN }] }), Anthropic.RateLimitError);
    assert.equal((error.error as { error: { type: string } }).error.type, 'rate_limit_exceeded');
    assert.ok(Number(error.headers?.get('retry-after')) >= 1);
    assert.equal(tokenizerUse.chars, tokenised);
    assert.equal(upstreamCalls(), sent);
  });

  test('count_tokens counts against the key’s rpm (429 in the messages envelope past it); a request is counted once', async () => {
    const limited = await tg.customer(5, { rpm: 3 });
    // two paid requests: counted once each (twice would refuse the second count below)
    const chat = await openai(limited).chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'Hi' }] }).withResponse();
    assert.equal(chat.response.headers.get('x-ratelimit-limit-requests'), '3');
    assert.equal(chat.response.headers.get('x-ratelimit-remaining-requests'), '2');
    const first = await anthropic(limited).messages.countTokens({ model: MODEL, messages: [{ role: 'user', content: 'How many tokens?' }] }).withResponse();
    assert.ok(first.data.input_tokens > 0);
    assert.equal(first.response.headers.get('x-ratelimit-remaining-requests'), '1');
    // 160 KB without a space, admitted: counted (off the event loop, in pieces) close to the text
    const large = await anthropic(limited).messages.countTokens({ model: MODEL, messages: [{ role: 'user', content: RUN }] });
    assert.ok(large.input_tokens > 70_000 && large.input_tokens < 90_000, String(large.input_tokens));
    const tokenised = tokenizerUse.chars;
    const error = await rejected(anthropic(limited).messages.countTokens({ model: MODEL, messages: [{ role: 'user', content: RUN }] }), Anthropic.RateLimitError);
    assert.equal(error.status, 429);
    assert.equal((error.error as { type: string }).type, 'error', 'the messages envelope');
    assert.equal((error.error as { error: { type: string } }).error.type, 'rate_limit_exceeded');
    assert.equal(tokenizerUse.chars, tokenised);
    // the count_tokens calls used the minute up for the paid routes as well
    await rejected(openai(limited).chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'Hi' }] }), OpenAI.RateLimitError);
  });
});
