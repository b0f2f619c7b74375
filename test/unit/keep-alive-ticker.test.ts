import assert from 'node:assert/strict';
import type { ServerResponse } from 'node:http';
import { mock, test } from 'node:test';
import { KeepAliveTicker, StreamSink } from '../../src/pipeline/client-sink.ts';

/** A committed sink over a response that records what was written to it. */
function openSink(): { sink: StreamSink; written: string[] } {
  const written: string[] = [];
  const res = { destroyed: false, writableEnded: false, writeHead: () => undefined, write: (text: string) => written.push(text) > 0 };
  const sink = new StreamSink(res as unknown as ServerResponse);
  sink.commit({});
  return { sink, written };
}

test('the keep-alive ticker writes a comment to every open stream left idle, and only to those still in its list', () => {
  mock.timers.enable({ apis: ['setInterval', 'Date'], now: 1_000_000 });
  try {
    const ticker = new KeepAliveTicker(3000);
    const streams = Array.from({ length: 5 }, openSink);
    for (const { sink } of streams) ticker.add(sink);
    ticker.add(streams[0]!.sink); // twice: still one entry
    assert.equal(ticker.size, 5);

    // remove the head (last added), one in the middle and the tail (first added)
    for (const i of [4, 2, 0]) ticker.delete(streams[i]!.sink);
    ticker.delete(streams[2]!.sink); // not in the list any more: nothing changes
    assert.equal(ticker.size, 2);

    mock.timers.tick(3000);
    assert.deepEqual(
      streams.map((s) => s.written.length),
      [0, 1, 0, 1, 0],
    );
    assert.equal(streams[1]!.written[0], ': keep-alive\n\n');

    // a removed sink can join again; the list stays consistent after emptying
    ticker.delete(streams[1]!.sink);
    ticker.delete(streams[3]!.sink);
    assert.equal(ticker.size, 0);
    ticker.add(streams[2]!.sink);
    mock.timers.tick(3000);
    assert.deepEqual(
      streams.map((s) => s.written.length),
      [0, 1, 1, 1, 0],
    );
    ticker.stop();
  } finally {
    mock.timers.reset();
  }
});

test('a stream that is not SSE (Google’s JSON array) is committed with its own Content-Type and kept alive with whitespace, which JSON allows between elements', () => {
  const heads: Array<Record<string, string>> = [];
  const written: string[] = [];
  const res = { destroyed: false, writableEnded: false, writeHead: (_: number, headers: Record<string, string>) => heads.push(headers), write: (text: string) => written.push(text) > 0 };
  const sink = new StreamSink(res as unknown as ServerResponse);
  sink.commit({ 'x-request-id': 'r' }, 'application/json; charset=utf-8');
  assert.equal(heads[0]!['content-type'], 'application/json; charset=utf-8');
  assert.equal(heads[0]!['x-request-id'], 'r');
  sink.write('[{"a":1}');
  sink.keepAlive(Date.now() + 60_000, 1000);
  sink.write(',\r\n{"a":2}]');
  assert.deepEqual(JSON.parse(written.join('')), [{ a: 1 }, { a: 2 }]);
  assert.equal(written[1], '\n');
});
