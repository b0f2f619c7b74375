// The top-level `usage` read from the end of an answer (json-tail.ts), and the OpenAI decode that
// uses it: the same usage as a full parse wherever one can be shown, a full parse otherwise.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { topLevelMemberFromEnd } from '../../src/vendors/_kit/json-tail.ts';
import { decodeOpenAIJson } from '../../src/vendors/openai/chat.ts';
import type { TargetInfo } from '../../src/core/contracts/vendor-codec.ts';

const bytes = (text: string) => new TextEncoder().encode(text);
const usage = (text: string) => topLevelMemberFromEnd(bytes(text), 'usage');
const same = { upstreamModel: 'm', publicModel: 'm' } as TargetInfo;
const renamed = { upstreamModel: 'upstream-m', publicModel: 'm' } as TargetInfo;

describe('topLevelMemberFromEnd', () => {
  test('the top-level member, wherever it stands among the last members, with any whitespace', () => {
    assert.deepEqual(usage('{"id":"x","usage":{"prompt_tokens":3}}'), { prompt_tokens: 3 });
    assert.deepEqual(usage('{"usage":{"prompt_tokens":3,"d":{"c":1}},"service_tier":"default","fp":"a}b{\\"c"}'), { prompt_tokens: 3, d: { c: 1 } });
    assert.deepEqual(usage('{\n  "data": [1, 2],\n  "usage" :\n {"total_tokens": 4}\n}\n'), { total_tokens: 4 });
    assert.deepEqual(usage('{"usage":[1,{"a":"]"}]}'), [1, { a: ']' }]);
  });

  test('the last of duplicate keys, as JSON.parse keeps', () => {
    assert.deepEqual(usage('{"usage":{"n":1},"usage":{"n":2}}'), { n: 2 });
  });

  test('a quoted "usage" inside a string is no key: the real one is found', () => {
    const text = '{"usage":{"n":7},"note":"say \\"usage\\":{\\"n\\":999} and \\\\"}';
    assert.equal(JSON.parse(text).note, 'say "usage":{"n":999} and \\');
    assert.deepEqual(usage(text), { n: 7 });
  });

  test('undefined when the last "usage" is not the top-level one, is absent or is not an object', () => {
    assert.equal(usage('{"usage":{"n":1},"x_vendor":{"usage":{"n":2}}}'), undefined, 'a nested usage after the top-level one');
    assert.equal(usage('{"choices":[{"usage":{"n":2}}]}'), undefined, 'only a nested one');
    assert.equal(usage('[{"usage":{"n":2}}]'), undefined, 'the document is an array');
    assert.equal(usage('{"id":"x"}'), undefined);
    assert.equal(usage('{"usage":null}'), undefined);
    assert.equal(usage('{"usage":{"n":1}'), undefined, 'cut off before the end');
    assert.equal(usage('{"usage":{"n":1}} trailing'), undefined);
    assert.equal(usage('{"usage":{"n":1,}}'), undefined, 'the value is not JSON');
    assert.equal(usage('{"k":"usage":{"n":1}}'), undefined, 'a string in a value\'s place, not a key');
  });

  test('reads a Uint8Array that is a view into a larger buffer', () => {
    const backing = Buffer.from('xxxx{"usage":{"n":5}}yyyy');
    assert.deepEqual(topLevelMemberFromEnd(new Uint8Array(backing.buffer, backing.byteOffset + 4, backing.length - 8), 'usage'), { n: 5 });
  });
});

describe('decodeOpenAIJson', () => {
  const answer = (extra = '') => `{"id":"c","model":"upstream-m","choices":[{"message":{"content":"héllo 🙂"}}],"usage":{"prompt_tokens":9,"completion_tokens":4,"prompt_tokens_details":{"cached_tokens":2}}${extra}}`;

  test('usage read from the end; the body is the vendor\'s bytes, untouched', () => {
    const raw = bytes(answer(',"system_fingerprint":"fp"'));
    const decoded = decodeOpenAIJson(raw, same, () => 'never asked');
    assert.equal(decoded.body, raw);
    assert.deepEqual([decoded.usage?.inputTokens, decoded.usage?.outputTokens, decoded.usage?.cachedInputTokens], [9, 4, 2]);
    assert.equal(decoded.outputText, undefined);
  });

  test('what comes before the usage is not parsed: an answer too big to parse whole costs nothing', () => {
    // not JSON before the usage: a full parse would throw; the relay passes the vendor's bytes
    const raw = bytes('{"data":[1,2,,,,3],"usage":{"prompt_tokens":5,"total_tokens":5}}');
    assert.throws(() => JSON.parse(new TextDecoder().decode(raw)));
    assert.equal(decodeOpenAIJson(raw, same, () => '').usage?.inputTokens, 5);
  });

  test('a nested usage after the top-level one: the whole answer is parsed and the top-level one counts', () => {
    const decoded = decodeOpenAIJson(bytes(answer(',"x_vendor":{"usage":{"prompt_tokens":1000}}')), same, () => '');
    assert.equal(decoded.usage?.inputTokens, 9);
  });

  test('no usage: parsed whole, the output text is handed back for a local count', () => {
    const decoded = decodeOpenAIJson(bytes('{"choices":[{"message":{"content":"abc"}}]}'), same, (json) => JSON.stringify(json.choices));
    assert.equal(decoded.usage, null);
    assert.equal(decoded.outputText, '[{"message":{"content":"abc"}}]');
  });

  test('a renamed model is written back, so that answer is parsed whole', () => {
    const decoded = decodeOpenAIJson(bytes(answer()), renamed, () => '');
    assert.equal(typeof decoded.body, 'string');
    const body = JSON.parse(decoded.body as string);
    assert.equal(body.model, 'm');
    assert.equal(decoded.usage?.inputTokens, 9);
  });
});
