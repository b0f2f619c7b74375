import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { upstreamUnavailable } from '../../src/core/errors.ts';
import type { TargetInfo } from '../../src/core/contracts/vendor-codec.ts';
import { countTextTokens } from '../../src/core/tokens/token-counter.ts';
import { SseDecoder, type SseEvent } from '../../src/core/sse.ts';
import { OpenAIPassthroughRelay } from '../../src/vendors/openai/passthrough-relay.ts';
import { emptyUsage } from '../../src/core/usage.ts';

const same: TargetInfo = { providerId: 'p', upstreamModel: 'gpt-4o-mini', publicModel: 'gpt-4o-mini' };
const mapped: TargetInfo = { providerId: 'p', upstreamModel: 'llama-3.1-8b', publicModel: 'gpt-4o-mini' };

const deltaText = (json: Record<string, unknown>) =>
  ((json.choices as Array<{ delta?: { content?: string } }>) ?? []).map((c) => c.delta?.content ?? '').join('');

const ev = (data: string): SseEvent => ({ data, event: undefined, id: undefined });

function chunk(model: string, content: string | null, usage: unknown = null, choices = true): string {
  return JSON.stringify({
    id: 'chatcmpl-1',
    object: 'chat.completion.chunk',
    created: 1,
    model,
    choices: choices ? [{ index: 0, delta: content === null ? {} : { content }, finish_reason: content === null ? 'stop' : null }] : [],
    usage,
  });
}

const usageObject = (prompt: number, completion: number, cached = 0) => ({
  prompt_tokens: prompt,
  completion_tokens: completion,
  total_tokens: prompt + completion,
  prompt_tokens_details: { cached_tokens: cached },
});

/** A whole upstream stream asked with include_usage, as the codec always asks for it. */
function upstreamStream(model = 'gpt-4o-mini'): string[] {
  return [chunk(model, 'Hello'), chunk(model, ' world'), chunk(model, null), chunk(model, null, usageObject(12, 3, 4), false), '[DONE]'];
}

function run(relay: OpenAIPassthroughRelay, datas: string[]): string {
  return datas.map((d) => relay.onEvent(ev(d))).join('');
}

function clientEvents(text: string): string[] {
  return new SseDecoder().push(new TextEncoder().encode(text)).map((e) => e.data);
}

describe('OpenAIPassthroughRelay', () => {
  test('the usage-only chunk is hidden when the client did not ask for it; usage is still read', () => {
    const relay = new OpenAIPassthroughRelay(same, false, deltaText);
    const out = run(relay, upstreamStream());
    const events = clientEvents(out + relay.end().trailer(emptyUsage()));
    assert.equal(events.length, 4, 'three content/finish chunks and [DONE]');
    assert.equal(events.at(-1), '[DONE]');
    assert.ok(events.slice(0, 3).every((d) => JSON.parse(d).choices.length === 1), 'no choices:[] chunk reaches the client');
    const end = relay.end();
    assert.equal(end.complete, true);
    assert.deepEqual(
      end.usage && { input: end.usage.inputTokens, output: end.usage.outputTokens, cached: end.usage.cachedInputTokens },
      { input: 12, output: 3, cached: 4 },
    );
  });

  test('the usage chunk is relayed unchanged when the client asked for it', () => {
    const relay = new OpenAIPassthroughRelay(same, true, deltaText);
    const upstream = upstreamStream();
    const out = run(relay, upstream);
    const events = clientEvents(out + relay.end().trailer(emptyUsage()));
    assert.deepEqual(events, upstream, 'byte-for-byte the same data payloads');
    assert.equal(relay.end().usage?.inputTokens, 12);
  });

  test('the last usage report wins (cumulative reports)', () => {
    const relay = new OpenAIPassthroughRelay(same, true, deltaText);
    run(relay, [
      chunk('gpt-4o-mini', 'a', usageObject(10, 1)),
      chunk('gpt-4o-mini', 'b', usageObject(10, 2)),
      chunk('gpt-4o-mini', null, usageObject(10, 7, 5), false),
      '[DONE]',
    ]);
    const usage = relay.end().usage;
    assert.equal(usage?.outputTokens, 7);
    assert.equal(usage?.cachedInputTokens, 5);
  });

  test('"usage":null chunks report nothing; a stream without usage ends with usage null', () => {
    const relay = new OpenAIPassthroughRelay(same, false, deltaText);
    run(relay, [chunk('gpt-4o-mini', 'a'), chunk('gpt-4o-mini', null), '[DONE]']);
    assert.equal(relay.end().usage, null);
    assert.equal(relay.end().complete, true);
  });

  test('an in-band upstream error marks the relay failed and stops relaying', () => {
    const relay = new OpenAIPassthroughRelay(same, true, deltaText);
    const before = relay.onEvent(ev(chunk('gpt-4o-mini', 'partial')));
    assert.notEqual(before, '');
    assert.equal(relay.onEvent(ev('{"error":{"message":"overloaded","type":"server_error"}}')), '');
    assert.ok(relay.failed);
    assert.equal(relay.failed.status, 502);
    assert.match(relay.failed.message, /overloaded/);
    assert.equal(relay.onEvent(ev(chunk('gpt-4o-mini', 'more'))), '', 'nothing after the error');
    assert.equal(relay.onEvent(ev('[DONE]')), '');
    // a malformed error payload still fails the relay
    const other = new OpenAIPassthroughRelay(same, true, deltaText);
    other.onEvent(ev('  {"error": not json'));
    assert.equal(other.failed?.code, 'upstream_stream_error');
  });

  test('a stream without [DONE] is not complete and has no trailer', () => {
    const relay = new OpenAIPassthroughRelay(same, true, deltaText);
    run(relay, [chunk('gpt-4o-mini', 'Hello'), chunk('gpt-4o-mini', ' wor')]);
    const end = relay.end();
    assert.equal(end.complete, false);
    assert.equal(end.trailer(emptyUsage()), '');
  });

  test('events after [DONE] are ignored', () => {
    const relay = new OpenAIPassthroughRelay(same, true, deltaText);
    assert.equal(run(relay, ['[DONE]', chunk('gpt-4o-mini', 'late')]), '');
  });

  test('a mapped model is renamed back to the public id in every chunk', () => {
    const relay = new OpenAIPassthroughRelay(mapped, true, deltaText);
    // the usage chunk is held back into the trailer
    const out = run(relay, upstreamStream('llama-3.1-8b')) + relay.end().trailer(emptyUsage());
    assert.equal(out.includes('llama-3.1-8b'), false);
    const events = clientEvents(out).filter((d) => d !== '[DONE]').map((d) => JSON.parse(d) as { model: string });
    assert.equal(events.length, 4);
    assert.ok(events.every((e) => e.model === 'gpt-4o-mini'));
  });

  test('deliveredOutputTokens counts the text of the chunks that reached the client', () => {
    const relay = new OpenAIPassthroughRelay(same, false, deltaText);
    run(relay, [chunk('gpt-4o-mini', 'The quick brown fox'), chunk('gpt-4o-mini', ' jumps over the lazy dog.'), 'data-not-json']);
    assert.equal(relay.deliveredOutputTokens(), countTextTokens('The quick brown fox jumps over the lazy dog.'));
    assert.ok(relay.deliveredOutputTokens() > 0);
  });

  test('the last usage chunk is held back into the trailer (where the pipeline adds the cost), an earlier one goes out before what follows', () => {
    const relay = new OpenAIPassthroughRelay(same, true, deltaText);
    const usage = (n: number) => `{"id":"c","object":"chat.completion.chunk","created":1,"model":"gpt-4o-mini","choices":[],"usage":{"prompt_tokens":${n},"completion_tokens":1,"total_tokens":${n + 1}}}`;
    assert.equal(relay.onEvent(ev(usage(1))), '');
    assert.equal(relay.onEvent(ev(chunk('gpt-4o-mini', 'x'))), `data: ${usage(1)}\n\ndata: ${chunk('gpt-4o-mini', 'x')}\n\n`);
    assert.equal(relay.onEvent(ev(usage(2))), '');
    assert.equal(relay.onEvent(ev('[DONE]')), '');
    assert.equal(relay.end().trailer(emptyUsage()), `data: ${usage(2)}\n\ndata: [DONE]\n\n`);
  });

  test('no usage from the upstream: a client that asked for it gets the usage chunk with the count it is charged for', () => {
    const settled = { ...emptyUsage(), inputTokens: 5, outputTokens: 3 };
    const asked = new OpenAIPassthroughRelay(same, true, deltaText);
    run(asked, [chunk('gpt-4o-mini', 'Hi'), chunk('gpt-4o-mini', null), '[DONE]']);
    const [usageChunk, done] = clientEvents(asked.end().trailer(settled));
    assert.deepEqual(JSON.parse(usageChunk!), {
      id: 'chatcmpl-1',
      object: 'chat.completion.chunk',
      created: 1,
      model: 'gpt-4o-mini',
      choices: [],
      usage: { prompt_tokens: 5, completion_tokens: 3, total_tokens: 8, prompt_tokens_details: { cached_tokens: 0 }, completion_tokens_details: { reasoning_tokens: 0 } },
    });
    assert.equal(done, '[DONE]');
    const notAsked = new OpenAIPassthroughRelay(same, false, deltaText);
    run(notAsked, [chunk('gpt-4o-mini', 'Hi'), '[DONE]']);
    assert.equal(notAsked.end().trailer(settled), 'data: [DONE]\n\n');
  });

  test('errorEvent renders the OpenAI error envelope as one data event', () => {
    const relay = new OpenAIPassthroughRelay(same, false, deltaText);
    const text = relay.errorEvent(upstreamUnavailable('gone', 502, 'upstream_stream_interrupted'));
    const [data] = clientEvents(text);
    assert.deepEqual(JSON.parse(data!), { error: { message: 'gone', type: 'server_error', param: null, code: 'upstream_stream_interrupted' } });
  });

  describe('the byte path (onChunk)', () => {
    const wire = (datas: string[], lineEnd = '\n') => datas.map((d) => `data: ${d}${lineEnd}${lineEnd}`).join('');
    const multiByte = (model = 'gpt-4o-mini') => [chunk(model, 'héllo 世界 🙂'), chunk(model, ' and more'), chunk(model, null), chunk(model, null, usageObject(12, 3, 4), false), '[DONE]'];

    /** the upstream bytes cut at `cuts`, through onChunk and onChunkEnd */
    function feed(relay: OpenAIPassthroughRelay, bytes: Buffer, cuts: number[]): Buffer {
      const out: Buffer[] = [];
      let from = 0;
      for (const cut of [...cuts, bytes.length]) {
        const written = relay.onChunk(bytes.subarray(from, cut));
        out.push(Buffer.from(written));
        from = cut;
      }
      out.push(Buffer.from(relay.onChunkEnd()));
      return Buffer.concat(out);
    }

    for (const clientWantsUsage of [true, false]) {
      test(`cut at every byte offset, it writes what the event path writes (include_usage ${clientWantsUsage})`, () => {
        const upstream = multiByte();
        const expected = run(new OpenAIPassthroughRelay(same, clientWantsUsage, deltaText), upstream);
        const bytes = Buffer.from(wire(upstream));
        for (let cut = 0; cut <= bytes.length; cut++) {
          const relay = new OpenAIPassthroughRelay(same, clientWantsUsage, deltaText);
          const out = feed(relay, bytes, [cut]);
          assert.equal(out.toString('utf8'), expected, `cut at ${cut}`);
          assert.equal(relay.end().complete, true);
          assert.equal(relay.end().usage?.inputTokens, 12);
        }
      });
    }

    test('unchanged events are passed on as the very bytes that came', () => {
      const relay = new OpenAIPassthroughRelay(same, true, deltaText);
      const bytes = Buffer.from(wire([chunk('gpt-4o-mini', 'a'), chunk('gpt-4o-mini', 'b')]));
      const out = relay.onChunk(bytes);
      assert.ok(out instanceof Uint8Array);
      assert.equal(Buffer.compare(Buffer.from(out), bytes), 0);
      assert.equal(relay.deliveredOutputTokens(), countTextTokens('ab'));
    });

    test('a stream that ends in the chunk it came in is counted and closed from that chunk (its events never encoded)', () => {
      const events = [chunk('gpt-4o-mini', 'The quick'), chunk('gpt-4o-mini', ' brown fox'), chunk('gpt-4o-mini', null), '[DONE]'];
      const whole = new OpenAIPassthroughRelay(same, true, deltaText);
      whole.onChunk(Buffer.from(wire(events)));
      // the same stream one event a network chunk: every chunk's events encoded as it is relayed
      const split = new OpenAIPassthroughRelay(same, true, deltaText);
      for (const data of events) split.onChunk(Buffer.from(wire([data])));
      const settled = { ...emptyUsage(), inputTokens: 5, outputTokens: 4 };
      for (const relay of [whole, split]) {
        assert.equal(relay.deliveredOutputTokens(), countTextTokens('The quick brown fox'));
        const [usageChunk, done] = clientEvents(relay.end().trailer(settled));
        // the counted usage chunk is shaped as the last event delivered
        assert.deepEqual(JSON.parse(usageChunk!).id, 'chatcmpl-1');
        assert.deepEqual(JSON.parse(usageChunk!).usage.completion_tokens, 4);
        assert.equal(done, '[DONE]');
      }
      // a stream still open after its chunk is counted the same (its events encoded at the chunk's end)
      const open = new OpenAIPassthroughRelay(same, true, deltaText);
      open.onChunk(Buffer.from(wire(events.slice(0, 2))));
      open.onChunk(Buffer.from(wire(events.slice(2, 3))));
      assert.equal(open.deliveredOutputTokens(), countTextTokens('The quick brown fox'));
      assert.equal(open.end().complete, false);
    });

    test('only a real usage object is looked into: "message":{ and escaped text pass as they came', () => {
      const relay = new OpenAIPassthroughRelay(same, false, deltaText);
      // no space after `data:`: an event the byte path decoded would come out with one
      const lookalikes = ['data:{"id":"x","message":{"a":1},"choices":[{"index":0,"delta":{"content":"\\"usage\\":{"}}]}\n\n', 'data:{"id":"y","usage":null,"choices":[]}\n\n'];
      const usage = `data: ${chunk('gpt-4o-mini', null, usageObject(7, 2, 0), false)}\n\n`;
      const out = feed(relay, Buffer.from(lookalikes.join('') + usage + 'data: [DONE]\n\n'), []);
      assert.equal(out.toString('utf8'), lookalikes.join(''));
      assert.equal(relay.end().usage?.inputTokens, 7);
      assert.equal(relay.end().complete, true);
    });

    test('usage is read wherever it stands among chunks that end with "usage":null, a key after it or not', () => {
      const relay = new OpenAIPassthroughRelay(same, true, deltaText);
      // a report that does not end its chunk (a key after it), then a cumulative one that does
      const midway = JSON.stringify({ id: 'chatcmpl-1', choices: [{ index: 0, delta: { content: 'b' }, finish_reason: null }], usage: usageObject(5, 1), obfuscation: 'x' });
      const events = [chunk('gpt-4o-mini', 'a'), midway, chunk('gpt-4o-mini', 'c'), chunk('gpt-4o-mini', null, usageObject(5, 3), false), '[DONE]'];
      const out = feed(relay, Buffer.from(wire(events)), []).toString('utf8');
      // the first report went out before what followed it, the last is held for the trailer
      assert.deepEqual(clientEvents(out), events.slice(0, 3));
      assert.deepEqual(relay.end().usage && [relay.end().usage?.inputTokens, relay.end().usage?.outputTokens], [5, 3]);
      assert.equal(clientEvents(relay.end().trailer(emptyUsage())).length, 2);

      const onlyMidway = new OpenAIPassthroughRelay(same, true, deltaText);
      feed(onlyMidway, Buffer.from(wire([chunk('gpt-4o-mini', 'a'), midway, chunk('gpt-4o-mini', 'c'), '[DONE]'])), []);
      assert.equal(onlyMidway.end().usage?.outputTokens, 1);
      assert.equal(onlyMidway.deliveredOutputTokens(), countTextTokens('abc'));
    });

    test('CR line ends, comments, named and multi-line events go through the text path', () => {
      const crlf = new OpenAIPassthroughRelay(same, false, deltaText);
      const text = feed(crlf, Buffer.from(wire(multiByte(), '\r\n')), [7]).toString('utf8');
      assert.deepEqual(clientEvents(text + crlf.end().trailer(emptyUsage())).map((d) => (d === '[DONE]' ? d : JSON.parse(d).choices.length)), [1, 1, 1, '[DONE]']);
      assert.equal(crlf.end().usage?.outputTokens, 3);

      const odd = new OpenAIPassthroughRelay(same, true, deltaText);
      const a = chunk('gpt-4o-mini', 'a');
      const out = feed(odd, Buffer.from(`: keep-alive\n\nevent: message\ndata: ${a}\n\ndata: {"x":\ndata: 1}\n\ndata: [DONE]\n\n`), []).toString('utf8');
      assert.deepEqual(clientEvents(out), [a, '{"x":\n1}']);
      assert.equal(odd.end().complete, true);
    });

    test('an in-band error fails the relay and nothing after it is written; a renamed model is renamed', () => {
      const relay = new OpenAIPassthroughRelay(same, true, deltaText);
      const out = feed(relay, Buffer.from(wire([chunk('gpt-4o-mini', 'partial'), '{"error":{"message":"overloaded"}}', chunk('gpt-4o-mini', 'late')])), []);
      assert.match(relay.failed?.message ?? '', /overloaded/);
      assert.deepEqual(clientEvents(out.toString('utf8')).map((d) => JSON.parse(d).choices[0].delta.content), ['partial']);

      const renamed = new OpenAIPassthroughRelay(mapped, true, deltaText);
      const text = feed(renamed, Buffer.from(wire(multiByte('llama-3.1-8b'))), [30]).toString('utf8');
      assert.equal(text.includes('llama-3.1-8b'), false);
      assert.ok(clientEvents(text).every((d) => JSON.parse(d).model === 'gpt-4o-mini'));
    });

    test('short events pass; an error in compact or spaced JSON is caught', () => {
      const short = new OpenAIPassthroughRelay(same, true, deltaText);
      assert.equal(Buffer.from(feed(short, Buffer.from(wire(['{"a":1}', '{}', '1'])), [])).toString(), wire(['{"a":1}', '{}', '1']));
      assert.equal(short.failed, undefined);
      for (const error of ['{"error":{"message":"x"}}', ' { "error" : {"message":"x"}}']) {
        const relay = new OpenAIPassthroughRelay(same, true, deltaText);
        feed(relay, Buffer.from(wire([error])), []);
        assert.equal(relay.failed?.code, 'upstream_stream_error', error);
      }
    });

    test('a last event cut off by the end of the stream is dropped; the stream is not complete', () => {
      const relay = new OpenAIPassthroughRelay(same, true, deltaText);
      const bytes = Buffer.from(wire([chunk('gpt-4o-mini', 'a')]) + 'data: {"partial');
      const out = feed(relay, bytes, [10]).toString('utf8');
      assert.equal(clientEvents(out).length, 1);
      assert.equal(relay.end().complete, false);
    });
  });
});
