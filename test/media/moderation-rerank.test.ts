// Moderations with the official client (string and array input, the widely used result shape)
// and rerank over raw HTTP on both families (the OpenAI-compatible `/v1/rerank` upstream and the
// cohere family's v2), priced per request (per search unit) or per token as configured.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import OpenAI from 'openai';
import type { Customer } from '../helpers/gateway.ts';
import { nano, startMediaGateway, type MediaGateway } from '../helpers/media.ts';
import { tapUsage, type UsageTap } from '../helpers/upstreams.ts';

let mg: MediaGateway;
let tap: UsageTap;
let customer: Customer;

before(async () => {
  mg = await startMediaGateway();
  tap = tapUsage(mg.gateway);
  customer = await mg.customer(10);
});
after(async () => mg.closeAll());
const rowOf = () => tap.next((row) => row.account_id === customer.accountId);

describe('moderations', () => {
  test('a string and an array: one result per input with categories and scores; free by default, a per_request price applies once set', async () => {
    const client = mg.client(customer);
    const one = await client.moderations.create({ input: 'I will kill the lights' });
    assert.equal(one.results.length, 1);
    assert.equal(one.results[0]!.flagged, true);
    assert.equal(one.results[0]!.categories.violence, true);
    assert.equal(typeof one.results[0]!.category_scores.hate, 'number');
    assert.equal(one.model, 'omni-moderation-latest');
    assert.equal((await rowOf()).cost_nano, 0);

    const priced = await mg.admin('PUT', '/admin/models/omni-moderation-latest', { pricing: { per_request: 0.001 } });
    assert.equal(priced.status, 200, JSON.stringify(priced.body));
    const many = await client.moderations.create({ model: 'omni-moderation-latest', input: ['hello', 'I hate mondays'] });
    assert.deepEqual(many.results.map((r) => r.flagged), [false, true]);
    const row = await rowOf();
    assert.equal(row.units, 1);
    assert.equal(row.cost_nano, nano(0.001));
  });

  test('input is required and must not be empty; a chat model is refused; none charged', async () => {
    const client = mg.client(customer);
    const start = mg.balanceNano(customer.accountId);
    await assert.rejects(client.moderations.create({ input: [] as string[] }), (e: unknown) => e instanceof OpenAI.BadRequestError && (e as { param?: string }).param === 'input');
    await assert.rejects(client.moderations.create({ input: '' }), (e: unknown) => e instanceof OpenAI.BadRequestError && (e as { param?: string }).param === 'input');
    await assert.rejects(client.moderations.create({ model: 'gpt-4o-mini', input: 'x' }), (e: unknown) => e instanceof OpenAI.BadRequestError && (e as { param?: string }).param === 'model');
    assert.equal(mg.balanceNano(customer.accountId), start);
  });
});

describe('rerank', () => {
  const documents = ['Paris is the capital of France.', 'Bananas are yellow.', 'The capital of Germany is Berlin.', 'France borders Spain.'];

  test('the OpenAI-compatible upstream: results sorted by relevance, top_n kept, documents on request; priced per token', async () => {
    const res = await mg.post('/v1/rerank', customer.key, { model: 'jina-reranker-v2-base-multilingual', query: 'capital of France', documents, top_n: 2, return_documents: true });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.results.length, 2);
    assert.equal(res.body.results[0].index, 0);
    assert.equal(res.body.results[0].document.text, documents[0]);
    assert.ok(res.body.results[0].relevance_score >= res.body.results[1].relevance_score);
    const upstream = mg.sim!.requests.findLast((r) => r.path === '/v1/rerank');
    assert.deepEqual(upstream?.body, { model: 'jina-reranker-v2-base-multilingual', query: 'capital of France', documents, return_documents: false, top_n: 2 });
    const row = await rowOf();
    assert.equal(row.prompt_tokens, res.body.usage.total_tokens);
    assert.ok(row.prompt_tokens > 0);
    assert.equal(row.cost_nano, Math.round((row.prompt_tokens * 18_000_000) / 1_000_000)); // $0.018 per million tokens
  });

  test('the cohere family (v2): the same answer shape; one search unit per 100 documents at $0.002 each', async () => {
    const res = await mg.post('/v1/rerank', customer.key, { model: 'rerank-v3.5', query: 'capital of Germany', documents });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.results.length, 4);
    assert.equal(res.body.results[0].index, 2);
    const scores = res.body.results.map((r: { relevance_score: number }) => r.relevance_score);
    assert.deepEqual(scores, [...scores].sort((a, b) => b - a));
    assert.equal(res.body.results[0].document, undefined);
    assert.equal(mg.cohere.requests.at(-1)?.path, '/v2/rerank');
    assert.equal((await rowOf()).cost_nano, nano(0.002));

    const many = Array.from({ length: 250 }, (_, i) => `document number ${i}`);
    const big = await mg.post('/v1/rerank', customer.key, { model: 'rerank-v3.5', query: 'number 7', documents: many, top_n: 3 });
    assert.equal(big.body.results.length, 3);
    assert.equal(big.body.usage.search_units, 3);
    const row = await rowOf();
    assert.equal(row.units, 3);
    assert.equal(row.cost_nano, 3 * nano(0.002));
  });

  test('rules and failures: query and documents required, top_n ≥ 1, at most 1000 documents; an upstream failure costs nothing', async () => {
    const start = mg.balanceNano(customer.accountId);
    const bad = async (body: Record<string, unknown>, param: string) => {
      const res = await mg.post('/v1/rerank', customer.key, { model: 'rerank-v3.5', query: 'q', documents: ['a'], ...body });
      assert.equal(res.status, 400, JSON.stringify(res.body));
      assert.equal(res.body.error.param, param);
    };
    await bad({ query: '' }, 'query');
    await bad({ documents: [] }, 'documents');
    await bad({ documents: Array.from({ length: 1001 }, () => 'd') }, 'documents');
    await bad({ top_n: 0 }, 'top_n');
    await bad({ documents: [42] }, 'documents[0]');
    mg.cohere.failures.push(503);
    const down = await mg.post('/v1/rerank', customer.key, { model: 'rerank-v3.5', query: 'q', documents: ['a'] });
    assert.equal(down.status, 502);
    assert.equal(mg.balanceNano(customer.accountId), start);
    await mg.assertBillingInvariants(customer.accountId);
  });
});
