// Exact expected charges, computed from the catalogue's prices the way the ledger must: integer
// nano-dollars, the sum of tokens × rate over all token kinds, rounded once (half up).
import assert from 'node:assert/strict';
import OpenAI from 'openai';
import type { TestGateway } from './gateway.ts';
import { usageRows, usdToNanoExact } from './upstreams.ts';

export interface TokenUsage {
  prompt: number;
  completion: number;
  cached?: number;
  cacheWrite?: number;
}

interface Rates {
  input: bigint;
  output: bigint;
  cached: bigint;
  cacheWrite: bigint;
}

const rateCache = new WeakMap<TestGateway, Map<string, Rates>>();

async function ratesOf(tg: TestGateway, model: string): Promise<Rates> {
  let table = rateCache.get(tg);
  if (!table) {
    table = new Map();
    rateCache.set(tg, table);
    const models = await tg.admin('GET', '/admin/models');
    assert.equal(models.status, 200);
    for (const m of models.body.data) {
      const p = m.pricing ?? {};
      const input = BigInt(usdToNanoExact(p.input_per_mtok ?? 0));
      table.set(m.id, {
        input,
        output: BigInt(usdToNanoExact(p.output_per_mtok ?? 0)),
        cached: p.cached_input_per_mtok === undefined ? input : BigInt(usdToNanoExact(p.cached_input_per_mtok)),
        cacheWrite: p.cache_write_per_mtok === undefined ? input : BigInt(usdToNanoExact(p.cache_write_per_mtok)),
      });
    }
  }
  const rates = table.get(model);
  assert.ok(rates, `no price for ${model}`);
  return rates;
}

/** The exact cost of `usage` on `model` in nano-dollars. */
export async function expectedCostNano(tg: TestGateway, model: string, usage: TokenUsage): Promise<number> {
  const r = await ratesOf(tg, model);
  const cached = BigInt(usage.cached ?? 0);
  const written = BigInt(usage.cacheWrite ?? 0);
  const numerator = (BigInt(usage.prompt) - cached - written) * r.input + cached * r.cached + written * r.cacheWrite + BigInt(usage.completion) * r.output;
  return Number((numerator + 500_000n) / 1_000_000n);
}

/**
 * The account was charged exactly once, exactly the price of `usage`: balance, the one usage row
 * and the journal agree, and no reservation stays open.
 */
export async function assertChargedExactly(tg: TestGateway, accountId: string, startNano: number, model: string, usage: TokenUsage, endpoint: string): Promise<void> {
  const cost = await expectedCostNano(tg, model, usage);
  assert.ok(cost > 0, 'a priced request costs something');
  assert.equal(startNano - tg.balanceNano(accountId), cost, 'balance drop = price × usage');
  const rows = await usageRows(tg, accountId);
  assert.equal(rows.length, 1, 'one usage row per call');
  const row = rows[0];
  assert.equal(row.model, model);
  assert.equal(row.endpoint, endpoint);
  assert.equal(row.status, 200);
  assert.equal(row.prompt_tokens, usage.prompt);
  assert.equal(row.completion_tokens, usage.completion);
  assert.equal(row.cached_tokens, usage.cached ?? 0);
  assert.equal(row.estimated, false);
  assert.equal(usdToNanoExact(row.cost_usd), cost, 'usage row cost = the charge');
  await tg.assertBillingInvariants(accountId);
}

/** Nothing was charged: the balance is untouched and no reservation stays open. */
export async function assertNotCharged(tg: TestGateway, accountId: string, startNano: number): Promise<void> {
  assert.equal(tg.balanceNano(accountId), startNano, 'not charged');
  await tg.assertBillingInvariants(accountId);
}

/**
 * Reads an OpenAI SDK chat stream and aborts it after `chunks` chunks: the content read and how
 * many chunks came (depending on where the abort lands the SDK throws or just ends the iteration).
 */
export async function readThenAbort(stream: AsyncIterable<OpenAI.Chat.Completions.ChatCompletionChunk>, controller: AbortController, chunks: number): Promise<{ received: string; chunks: number }> {
  let received = '';
  let read = 0;
  try {
    for await (const chunk of stream) {
      received += chunk.choices[0]?.delta.content ?? '';
      if (++read === chunks) controller.abort();
    }
  } catch (error) {
    assert.ok(error instanceof OpenAI.APIUserAbortError || (error as Error).name === 'AbortError', String(error));
  }
  return { received, chunks: read };
}
