import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ResponsesRepository } from '../../src/store/repositories/responses.ts';
import { ResponseKeeper } from '../../src/store/response-keeper.ts';

test('one request reads at most maxChain stored responses, however many it references', async () => {
  let reads = 0;
  const repo = { get: async () => (reads++, undefined) } as unknown as ResponsesRepository;
  const keeper = new ResponseKeeper(repo, { retentionDays: 30, maxChain: 50 });
  const refs = Array.from({ length: 20_000 }, (_, i) => `resp_${i % 10_000}`);
  const { found } = await keeper.load('acct_a', { responses: refs, items: [] });
  assert.equal(found.size, 0);
  assert.equal(reads, 50);
});

test('item references: one index lookup for all of them, then at most maxChain responses read', async () => {
  let reads = 0;
  const lookups: string[][] = [];
  const repo = {
    get: async () => (reads++, undefined),
    // every item in a response of its own
    itemOwners: async (_account: string, ids: readonly string[]) => (lookups.push([...ids]), new Map(ids.map((id) => [id, `resp_of_${id}`]))),
  } as unknown as ResponsesRepository;
  const keeper = new ResponseKeeper(repo, { retentionDays: 30, maxChain: 50 });
  const items = Array.from({ length: 10_000 }, (_, i) => `fc_${i}`);
  const { found, itemOwners } = await keeper.load('acct_a', { responses: ['resp_prev'], items });
  assert.equal(lookups.length, 1);
  assert.equal(itemOwners.size, 10_000);
  assert.equal(found.size, 0);
  assert.equal(reads, 50);
});

test('an item reference writes the pending batch early only when a pending answer of the account holds the item', async () => {
  const batches: number[] = [];
  const repo = {
    get: async () => undefined,
    itemOwners: async () => new Map<string, string>(),
    insertMany: async (rows: unknown[]) => void batches.push(rows.length),
  } as unknown as ResponsesRepository;
  const keeper = new ResponseKeeper(repo, { retentionDays: 30, flushDelayMs: 60_000 });
  const turn = { id: 'resp_1', model: 'm', createdAt: Date.now(), status: 'completed', previousResponseId: null, instructions: null, input: [], output: [{ type: 'message', id: 'msg_1' }], usage: null, settings: null };
  keeper.save('acct_a', null, turn);
  // an unknown id, and the item seen from another account: the batch keeps waiting
  await keeper.load('acct_a', { responses: [], items: ['msg_unknown'] });
  await keeper.load('acct_b', { responses: [], items: ['msg_1'] });
  assert.deepEqual(batches, []);
  await keeper.load('acct_a', { responses: [], items: ['msg_1'] });
  assert.deepEqual(batches, [1]);
  await keeper.stop();
});
