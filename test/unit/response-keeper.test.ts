import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ResponsesRepository } from '../../src/store/repositories/responses.ts';
import { ResponseKeeper } from '../../src/store/response-keeper.ts';

test('one request reads at most maxChain stored responses, however many it references', async () => {
  let reads = 0;
  const repo = { get: async () => (reads++, undefined) } as unknown as ResponsesRepository;
  const keeper = new ResponseKeeper(repo, { retentionDays: 30, maxChain: 50 });
  const refs = Array.from({ length: 20_000 }, (_, i) => `resp_${i % 10_000}`);
  const found = await keeper.load('acct_a', refs);
  assert.equal(found.size, 0);
  assert.equal(reads, 50);
});
