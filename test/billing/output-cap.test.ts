// A chat with no output cap of its own: the gateway sends the cap it reserved for upstream, so an
// answer can cost more than its hold only by what the vendor overruns its own cap by.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import OpenAI from 'openai';
import { addFamilyProvider, type FamilyUpstream } from '../helpers/families.ts';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';

const CREDIT_USD = 0.01;
const CONCURRENT = 6;
const LONG_ANSWER = 16_000;

interface Outcome {
  served: Array<{ completionTokens: number; finishReason: string | null }>;
  refused: number;
}

/** Six chats at once, none with max_tokens, each asking for a long answer; counts what was served. */
async function sixLongChats(client: OpenAI, model: string, stream: boolean, directives: string): Promise<Outcome> {
  const one = async (i: number) => {
    const messages = [{ role: 'user' as const, content: `Write at length, part ${i}. ${directives}` }];
    if (!stream) {
      const reply = await client.chat.completions.create({ model, messages });
      return { completionTokens: reply.usage!.completion_tokens, finishReason: reply.choices[0]!.finish_reason };
    }
    const chunks = await client.chat.completions.create({ model, messages, stream: true, stream_options: { include_usage: true } });
    let completionTokens = -1;
    let finishReason: string | null = null;
    for await (const chunk of chunks) {
      if (chunk.usage) completionTokens = chunk.usage.completion_tokens;
      finishReason = chunk.choices[0]?.finish_reason ?? finishReason;
    }
    return { completionTokens, finishReason };
  };
  const settled = await Promise.allSettled(Array.from({ length: CONCURRENT }, (_, i) => one(i)));
  const outcome: Outcome = { served: [], refused: 0 };
  for (const result of settled) {
    if (result.status === 'fulfilled') outcome.served.push(result.value);
    else {
      assert.ok(result.reason instanceof OpenAI.APIError, String(result.reason));
      assert.equal(result.reason.status, 402, 'a refusal is for the balance');
      outcome.refused++;
    }
  }
  return outcome;
}

/** The output cap each chat carried upstream, in the family's own field. */
type CapOf = (body: Record<string, unknown>) => unknown;

function familyCase(name: string, setup: () => Promise<{ tg: TestGateway; model: string; requests: () => Array<{ body: unknown; path: string }>; capOf: CapOf; reset: () => void; close?: () => Promise<void> }>) {
  describe(`${name}: chats without max_tokens on $0.01`, () => {
    let ctx: Awaited<ReturnType<typeof setup>>;
    before(async () => {
      ctx = await setup();
    });
    after(async () => {
      await ctx.tg.close();
      await ctx.close?.();
    });

    for (const stream of [false, true]) {
      test(`${stream ? 'streamed' : 'whole'}: the balance never goes below zero and every upstream request carried the cap`, async () => {
        ctx.reset();
        const customer = await ctx.tg.customer(CREDIT_USD);
        const client = new OpenAI({ apiKey: customer.key, baseURL: ctx.tg.baseURL, maxRetries: 0 });
        const outcome = await sixLongChats(client, ctx.model, stream, `[[sim:long=${LONG_ANSWER}]]`);
        assert.ok(outcome.served.length >= 1, 'the credit pays for at least one answer');
        assert.ok(ctx.tg.balanceNano(customer.accountId) >= 0, `balance ${ctx.tg.balanceNano(customer.accountId)} nano-USD went below zero`);
        const chats = ctx.requests();
        assert.equal(chats.length, outcome.served.length, 'only served chats reached the vendor');
        const caps = chats.map((r) => ctx.capOf(r.body as Record<string, unknown>));
        for (const cap of caps) assert.equal(typeof cap, 'number', `the upstream body carried an output cap (${JSON.stringify(caps)})`);
        for (const served of outcome.served) {
          assert.ok(served.completionTokens <= Math.max(...(caps as number[])), 'no answer ran past its cap');
          if (served.completionTokens < LONG_ANSWER) assert.equal(served.finishReason, 'length', 'a vendor stops at the cap with finish_reason length');
        }
        await ctx.tg.assertBillingInvariants(customer.accountId);
      });
    }

    test('a vendor that ignores the cap: the charge exceeds the hold by its overrun only', async () => {
      ctx.reset();
      const customer = await ctx.tg.customer(CREDIT_USD);
      const client = new OpenAI({ apiKey: customer.key, baseURL: ctx.tg.baseURL, maxRetries: 0 });
      const outcome = await sixLongChats(client, ctx.model, false, `[[sim:long=${LONG_ANSWER}]] [[sim:ignore-cap]]`);
      const caps = ctx
        .requests()
        .map((r) => ctx.capOf(r.body as Record<string, unknown>))
        .filter((cap): cap is number => typeof cap === 'number');
      assert.equal(caps.length, outcome.served.length);
      const models = await ctx.tg.admin('GET', '/admin/models');
      const outputPerMtok = models.body.data.find((m: { id: string }) => m.id === ctx.model).pricing.output_per_mtok as number;
      // what the vendor produced past the cap it was sent, priced: the only money the hold did not cover
      const overrunNano = outcome.served.reduce((sum, s, i) => sum + Math.max(0, s.completionTokens - caps[i]!) * outputPerMtok * 1000, 0);
      assert.ok(ctx.tg.balanceNano(customer.accountId) >= -Math.ceil(overrunNano), `balance ${ctx.tg.balanceNano(customer.accountId)} beyond the vendor's overrun ${overrunNano}`);
      await ctx.tg.assertBillingInvariants(customer.accountId);
    });
  });
}

familyCase('openai family (gpt-4o-mini)', async () => {
  const tg = await startTestGateway();
  return {
    tg,
    model: 'gpt-4o-mini',
    requests: () => tg.sim!.requests.filter((r) => r.path.startsWith('/v1/chat/completions') || r.path.startsWith('/chat/completions')),
    capOf: (body) => body.max_completion_tokens ?? body.max_tokens,
    reset: () => tg.sim!.reset(),
  };
});

familyCase('gemini family (gemini-2.5-flash-lite)', async () => {
  const tg = await startTestGateway({ simulator: false });
  const upstream: FamilyUpstream = await addFamilyProvider(tg, 'gemini', { models: ['gemini-2.5-flash-lite'] });
  return {
    tg,
    model: 'gemini-2.5-flash-lite',
    requests: () => upstream.requests.filter((r) => r.path.includes('enerateContent')) as Array<{ body: unknown; path: string }>,
    capOf: (body) => (body.generationConfig as { maxOutputTokens?: number } | undefined)?.maxOutputTokens,
    reset: () => upstream.reset(),
    close: () => upstream.close(),
  };
});

describe('the cap sent is the cap reserved for', () => {
  let tg: TestGateway;
  before(async () => {
    tg = await startTestGateway();
  });
  after(async () => {
    await tg.close();
  });

  test("an account that covers the model's whole output is reserved for it, and the vendor is sent it", async () => {
    const customer = await tg.customer(5);
    const client = new OpenAI({ apiKey: customer.key, baseURL: tg.baseURL, maxRetries: 0 });
    tg.sim!.reset();
    const reply = await client.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'A short one. [[sim:long=20000]]' }] });
    const models = await tg.admin('GET', '/admin/models');
    const gpt4o = models.body.data.find((m: { id: string }) => m.id === 'gpt-4o');
    assert.equal(gpt4o.max_output_tokens, 16_384, 'the catalogue knows the model’s maximum output');
    const sent = tg.sim!.requests.at(-1)!.body as Record<string, unknown>;
    assert.equal(sent.max_completion_tokens, 16_384, 'OpenAI models get max_completion_tokens');
    assert.equal(sent.max_tokens, undefined);
    assert.equal(reply.usage!.completion_tokens, 16_384);
    assert.equal(reply.choices[0]!.finish_reason, 'length');
    await tg.assertBillingInvariants(customer.accountId);
  });

  test('a key with a tokens-per-minute limit keeps the configured allowance it was admitted for', async () => {
    const customer = await tg.customer(5, { tpm: 1_000_000 });
    const client = new OpenAI({ apiKey: customer.key, baseURL: tg.baseURL, maxRetries: 0 });
    tg.sim!.reset();
    const reply = await client.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'Go on. [[sim:long=20000]]' }] });
    const sent = tg.sim!.requests.at(-1)!.body as Record<string, unknown>;
    assert.equal(sent.max_completion_tokens, tg.gateway.config.defaultMaxOutputTokens);
    assert.equal(reply.usage!.completion_tokens, tg.gateway.config.defaultMaxOutputTokens, 'counted against the limit as admitted');
    await tg.assertBillingInvariants(customer.accountId);
  });

  test('legacy completions without max_tokens send the 16 tokens they are reserved for', async () => {
    const customer = await tg.customer(5);
    const client = new OpenAI({ apiKey: customer.key, baseURL: tg.baseURL, maxRetries: 0 });
    tg.sim!.reset();
    const reply = await client.completions.create({ model: 'gpt-3.5-turbo-instruct', prompt: 'Once upon a time' });
    const sent = tg.sim!.requests.at(-1)!.body as Record<string, unknown>;
    assert.equal(sent.max_tokens, 16);
    assert.ok(reply.usage!.completion_tokens <= 16);
  });
});
