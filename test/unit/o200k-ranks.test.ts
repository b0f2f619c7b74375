// The o200k tables are built from the package's tiktoken file (src/core/tokens/o200k.ts): they
// must be exactly what gpt-tokenizer's own module holds, and count as its countTokens counts.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';
import { countTokens } from 'gpt-tokenizer';
import packaged from 'gpt-tokenizer/bpeRanks/o200k_base';
import { MERGE_CACHE_ENTRIES, o200k, readRanks } from '../../src/core/tokens/o200k.ts';

test("the ranks read from data/o200k_base.tiktoken are the package module's, rank for rank", () => {
  const ranks = readRanks(readFileSync(fileURLToPath(import.meta.resolve('gpt-tokenizer/data/o200k_base.tiktoken')), 'latin1'));
  assert.equal(ranks.length, packaged.length);
  assert.ok(ranks.some((value) => Array.isArray(value)), 'byte sequences that are not UTF-8 stay bytes');
  assert.deepEqual(ranks, packaged);
});

test('a rank file with a gap or a token that is not UTF-8', () => {
  // "IQ==" = "!", "/w==" = 0xff (not UTF-8), rank 3 has no token
  assert.deepEqual(readRanks('IQ== 0\n/w== 1\nIiM= 2\nJA== 4\n'), ['!', [0xff], '"#', '', '$']);
});

test('a token longer than the decode buffer is read whole; a line without a rank is skipped', () => {
  const long = 'x'.repeat(3000);
  assert.deepEqual(readRanks(`IQ== 0\nnot a rank line\n${Buffer.from(long).toString('base64')} 1\n`), ['!', long]);
});

test('counts as gpt-tokenizer counts: its test plans, and text with special-token look-alikes', () => {
  const lines = readFileSync(fileURLToPath(import.meta.resolve('gpt-tokenizer/data/TestPlans.txt')), 'utf8').split('\n');
  for (const line of [...lines, 'héllo 世界 🙂', 'a\u0000b', ' '.repeat(40)]) assert.equal(o200k().countTokens(line), countTokens(line), line);
});

test('the words it had to merge are kept up to MERGE_CACHE_ENTRIES, not the package default of 100,000', () => {
  const encoding = o200k();
  // made-up words (no token of their own): each is merged once and cached
  const word = (n: number) => ' qzx' + [...n.toString(26)].map((digit) => String.fromCharCode(97 + parseInt(digit, 26))).join('');
  for (let i = 0; i < MERGE_CACHE_ENTRIES * 3; i++) encoding.countTokens(word(i));
  const cache = (encoding as unknown as { bytePairEncodingCoreProcessor: { mergeCache?: Map<string, unknown> } }).bytePairEncodingCoreProcessor.mergeCache;
  assert.ok(cache, 'the merge cache is on');
  assert.equal(cache.size, MERGE_CACHE_ENTRIES);
  assert.equal(encoding.countTokens(word(1)), countTokens(word(1)), 'a word counted again after it left the cache counts the same');
});
