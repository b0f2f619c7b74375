import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { DeliveredEvents } from '../../src/vendors/openai/delivered-events.ts';

function readBack(log: DeliveredEvents): string[] {
  const out: string[] = [];
  log.forEach((data) => out.push(data));
  return out;
}

describe('DeliveredEvents', () => {
  test('gives back every event exactly, in order, whether added as bytes or as text', () => {
    const events = [
      '{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null}],"usage":null}',
      '{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":"Héllo"},"finish_reason":null}],"usage":null}',
      '{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":"Hél"},"finish_reason":null}],"usage":null}',
      '{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":"😀 wörld"},"finish_reason":null}],"usage":null}',
      '',
      'x',
      '{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{},"finish_reason":"stop"}],"usage":null}',
      'not json at all',
      'not json at all',
    ];
    const log = new DeliveredEvents();
    events.forEach((data, i) => {
      if (i % 2 === 0) log.addText(data);
      else {
        // inside a larger network chunk, as the byte path sees it
        const chunk = Buffer.from(`data: ${data}\n\n`);
        log.add(chunk, 6, chunk.length - 2);
      }
    });
    assert.equal(log.count, events.length);
    assert.deepEqual(readBack(log), events);
    assert.equal(log.lastText(), events.at(-1));
  });

  test("one network chunk's events are noted, then encoded in order when the chunk is settled, another chunk's event or a text event comes, or the log is read", () => {
    const datas = ['{"a":1,"text":"one"}', '{"a":1,"text":"two"}', '{"a":1,"text":"three"}', '{"a":2,"text":"four"}', '{"a":2,"text":"five"}'];
    const wire = (list: string[]) => Buffer.from(list.map((d) => `data: ${d}\n\n`).join(''));
    const spans = (bytes: Buffer) => {
      const out: Array<[number, number]> = [];
      for (let at = bytes.indexOf('data: '); at !== -1; at = bytes.indexOf('data: ', at + 1)) out.push([at + 6, bytes.indexOf('\n\n', at)]);
      return out;
    };
    // noted only: counted, the last one readable, every one given back
    const first = wire(datas.slice(0, 3));
    const noted = new DeliveredEvents();
    for (const [start, end] of spans(first)) noted.add(first, start, end);
    assert.equal(noted.count, 3);
    assert.equal(noted.lastText(), datas[2]);
    assert.deepEqual(readBack(noted), datas.slice(0, 3));
    // across chunks, settled or not, with a text event between: always in order
    const second = wire(datas.slice(3));
    const mixed = new DeliveredEvents();
    for (const [start, end] of spans(first)) mixed.add(first, start, end);
    mixed.addText('{"a":1,"text":"between"}');
    mixed.settle();
    mixed.settle();
    for (const [start, end] of spans(second)) mixed.add(second, start, end);
    assert.equal(mixed.count, 6);
    assert.equal(mixed.lastText(), datas[4]);
    assert.deepEqual(readBack(mixed), [...datas.slice(0, 3), '{"a":1,"text":"between"}', ...datas.slice(3)]);
    // read back twice: the same
    assert.deepEqual(readBack(mixed), [...datas.slice(0, 3), '{"a":1,"text":"between"}', ...datas.slice(3)]);
  });

  test('random events alike and not, across many segments, cut anywhere (inside a UTF-8 sequence too)', () => {
    let seed = 7;
    const random = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    const alphabet = Buffer.from('ab{}":, é€😀\\n');
    const events: Buffer[] = [];
    let previous = Buffer.alloc(0);
    for (let i = 0; i < 3000; i++) {
      const fresh = Buffer.from(Array.from({ length: random(60) }, () => alphabet[random(alphabet.length)]!));
      // mostly a variation of the previous event: its start, new bytes, its end
      const cut = random(previous.length + 1);
      const rest = cut + random(previous.length - cut + 1);
      previous = random(4) === 0 ? fresh : Buffer.concat([previous.subarray(0, cut), fresh, previous.subarray(rest)]);
      events.push(previous);
    }
    const log = new DeliveredEvents();
    for (const bytes of events) log.add(bytes, 0, bytes.length);
    assert.deepEqual(readBack(log), events.map((bytes) => bytes.toString('utf8')));
    assert.equal(log.lastText(), events.at(-1)!.toString('utf8'));
  });

  test('keeps a stream of alike chat chunks in a fraction of their size', () => {
    const log = new DeliveredEvents();
    let whole = 0;
    for (let i = 0; i < 200; i++) {
      const data = `{"id":"chatcmpl-26ad59130bb2407eb33d8d118abf0","object":"chat.completion.chunk","created":1795821669,"model":"gpt-4o-mini","service_tier":"default","system_fingerprint":"fp_sim0000001","choices":[{"index":0,"delta":{"content":"word ${i} "},"logprobs":null,"finish_reason":null}],"usage":null}`;
      whole += data.length;
      log.addText(data);
    }
    // 200 events of ~290 bytes: their own bytes (a few each) fit in one segment
    assert.ok(whole > 50_000);
    assert.equal((log as unknown as { segments: Buffer[] }).segments.length, 1);
  });

  test('text events larger than the buffers they are encoded in read back exactly; a large one is held at its own size', () => {
    const log = new DeliveredEvents();
    const events = ['small', 'é'.repeat(400), 'x'.repeat(2_000), '😀'.repeat(700), 'x'.repeat(2_001), 'tail'];
    for (const data of events) log.addText(data);
    assert.deepEqual(readBack(log), events);
    // the two encoding buffers: the largest is as large as the largest event's bytes, not 3× its UTF-16 length
    const scratch = (log as unknown as { scratch: Buffer[] }).scratch;
    assert.ok(Math.max(...scratch.map((b) => b.length)) <= Buffer.byteLength('😀'.repeat(700)) + 1, scratch.map((b) => b.length).join(', '));
  });

  test('an empty log reads back nothing', () => {
    const log = new DeliveredEvents();
    assert.equal(log.lastText(), undefined);
    assert.deepEqual(readBack(log), []);
  });
});
