// The cost spliced into an answer's last usage object (bytes or text, compact or spaced, empty
// or not), and the headers; an answer without a usage object is left as it is.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { costHeaders, withCost } from '../../src/pipeline/answer-cost.ts';

const settled = { costNano: 1_234_500, estimated: false };
const estimated = { costNano: 150, estimated: true };

test('the last usage object gets cost (and cost_estimated), whatever the spacing', () => {
  assert.equal(withCost('{"a":1,"usage":{"prompt_tokens":3}}', settled), '{"a":1,"usage":{"cost":0.0012345,"prompt_tokens":3}}');
  assert.deepEqual(JSON.parse(withCost('{\n  "usage": {\n    "total_tokens": 3\n  }\n}', estimated)), { usage: { cost: 1.5e-7, cost_estimated: true, total_tokens: 3 } });
  assert.equal(withCost('{"usage":{}}', settled), '{"usage":{"cost":0.0012345}}');
  const events = 'data: {"usage":{"a":1},"x":{"usage":{"b":2}}}\n\ndata: [DONE]\n\n';
  assert.equal(withCost(events, settled), 'data: {"usage":{"a":1},"x":{"usage":{"cost":0.0012345,"b":2}}}\n\ndata: [DONE]\n\n');
});

test('bytes are spliced as bytes', () => {
  const out = withCost(Buffer.from('{"data":[1,2],"usage":{"total_tokens":2}}'), settled);
  assert.ok(out instanceof Uint8Array);
  assert.equal(Buffer.from(out).toString(), '{"data":[1,2],"usage":{"cost":0.0012345,"total_tokens":2}}');
});

test('no usage object: unchanged', () => {
  for (const text of ['{"data":[]}', '{"usage":null}', '{"text":"\\"usage\\":{"}', 'data: [DONE]\n\n']) assert.equal(withCost(text, settled), text);
  const bytes = Buffer.from('{"created":1,"data":[{"b64_json":"AAAA"}]}');
  assert.equal(withCost(bytes, settled), bytes);
});

test('headers: the cost in USD, and the estimated flag only when estimated', () => {
  assert.deepEqual(costHeaders(settled), { 'x-modelgate-cost': '0.0012345' });
  assert.equal(Number(costHeaders(estimated)['x-modelgate-cost']), 1.5e-7, 'the same number as usage.cost');
  assert.deepEqual(costHeaders(estimated), { 'x-modelgate-cost': '0.00000015', 'x-modelgate-cost-estimated': 'true' });
});
