// The bounded token counter (issue 17, point 3), from the finding: "the o200k tokenizer is
// super-linear on long runs without spaces (40k chars 257 ms, 160k chars 4.3 s)". No tokenizer
// call may see a long run whole (that is what made it super-linear); the count stays within a
// fraction of a percent of the exact one; past the size threshold the byte bound is used without
// tokenising; the tokenizer thread gives the very counts of the inline path.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { countTokens } from 'gpt-tokenizer';
import { boundCounter, counterFor, countInThread, countPrompt, OFF_LOOP_BYTES } from '../../src/pipeline/off-loop-counter.ts';
import { BYTE_BOUND_CHARS, CHUNK_CHARS, countChatPromptTokens, countTextTokens, tokenizerPieces, tokenizerUse } from '../../src/core/tokens/token-counter.ts';

function letters(n: number, seed: number, alphabet = 'abcdefghijklmnopqrstuvwxyz'): string {
  let x = seed;
  let text = '';
  for (let i = 0; i < n; i++) {
    x = (x * 1103515245 + 12345) & 0x7fffffff;
    text += alphabet[x % alphabet.length];
  }
  return text;
}

const README = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
const CODE = readFileSync(new URL('../../src/pipeline/run-operation.ts', import.meta.url), 'utf8');

describe('pieces', () => {
  const texts: Array<[string, string]> = [
    ['160k letters without a space', letters(160_000, 1)],
    ['160k spaces', ' '.repeat(160_000)],
    ['emoji', '🙂😀🎉'.repeat(3_000)],
    ['prose', README],
  ];
  for (const [name, text] of texts) {
    test(`${name}: no piece is longer than ${CHUNK_CHARS} characters, the pieces are the text`, () => {
      const pieces = tokenizerPieces(text);
      assert.ok(pieces.every((piece) => piece.length <= CHUNK_CHARS));
      assert.equal(pieces.join(''), text);
      // linear: every piece but the last is at least half a chunk
      assert.ok(pieces.slice(0, -1).every((piece) => piece.length >= CHUNK_CHARS / 2 - 1));
    });
  }

  test('prose is cut where a whitespace run starts (the tokenizer splits words there itself)', () => {
    const pieces = tokenizerPieces(README);
    assert.ok(pieces.length > 1);
    for (const piece of pieces.slice(1)) assert.match(piece, /^\s/);
  });

  test('an emoji is never cut in half', () => {
    for (const piece of tokenizerPieces('x' + '🙂'.repeat(2_000))) assert.doesNotMatch(piece, /^[\udc00-\udfff]|[\ud800-\udbff]$/);
  });
});

/** A fixed JSON sample (the project's package.json as it was when the tolerance was set), so edits to the live file cannot move the figure. */
const JSON_SAMPLE = readFileSync(new URL('./tokenizer-sample.json', import.meta.url), 'utf8');

describe('the count stays close to the exact one', () => {
  const cases: Array<[string, string, number]> = [
    ['README (prose, tables)', README, 0.002],
    ['source code', CODE, 0.002],
    ['JSON', JSON.stringify(JSON.parse(JSON_SAMPLE)).repeat(20), 0.005],
    ['CJK without spaces', letters(6_000, 3, '的一是不了人我在有他这为之大来以个中上们到说国和地也子时道出而要于就下得可你年生'), 0.002],
    ['letters without spaces', letters(8_000, 4), 0.01],
    ['base64', Buffer.from(letters(6_000, 5)).toString('base64'), 0.01],
  ];
  for (const [name, text, tolerance] of cases) {
    test(`${name}: within ${tolerance * 100} % of the exact count`, () => {
      const exact = countTokens(text);
      const counted = countTextTokens(text);
      assert.ok(Math.abs(counted - exact) <= Math.max(1, exact * tolerance), `${counted} vs exact ${exact}`);
    });
  }

  test('short texts are counted exactly, as before', () => {
    for (const text of ['', 'hi', 'héllo 世界 🙂', 'x'.repeat(CHUNK_CHARS)]) assert.equal(countTextTokens(text), text ? countTokens(text) : 0);
  });
});

describe('past the size threshold', () => {
  test(`a text over ${BYTE_BOUND_CHARS} characters is bounded by its UTF-8 bytes without tokenising`, () => {
    const text = `${letters(BYTE_BOUND_CHARS, 6)}é`;
    const before = tokenizerUse.chars;
    assert.equal(countTextTokens(text), Buffer.byteLength(text));
    assert.equal(tokenizerUse.chars, before);
  });

  test('a request whose texts together pass the threshold is bounded the same way (the counter says so)', async () => {
    const body = { messages: [0, 1, 2].map((i) => ({ role: 'user', content: letters(100_000, 10 + i) })) };
    const counter = await counterFor((count) => countChatPromptTokens(body, count), 300_000);
    assert.equal(counter, boundCounter);
  });
});

describe('the tokenizer thread', () => {
  test('gives the same counts as the inline path', async () => {
    const texts = [README, CODE, letters(20_000, 7), 'héllo 世界 🙂'.repeat(500), ''];
    assert.deepEqual(await countInThread(texts), texts.map(countTextTokens));
  });

  test('a small body is counted inline with no promise; a large one through the thread, to the same total', async () => {
    const small = { messages: [{ role: 'user', content: 'Hello there' }] };
    const inline = countPrompt(small, countChatPromptTokens, 100);
    assert.equal(typeof inline, 'number');
    assert.equal(inline, countChatPromptTokens(small));

    const large = { messages: [{ role: 'system', content: README }, { role: 'user', content: letters(30_000, 8) }], tools: [{ type: 'function', function: { name: 'f', parameters: {} } }] };
    const before = tokenizerUse.chars;
    const counted = countPrompt(large, countChatPromptTokens, OFF_LOOP_BYTES * 4);
    assert.ok(counted instanceof Promise);
    assert.equal(await counted, countChatPromptTokens(large));
    assert.ok(tokenizerUse.chars > before);
  });
});
