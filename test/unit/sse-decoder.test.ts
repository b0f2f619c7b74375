import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { SseDecoder, sseData, sseNamed, type SseEvent } from '../../src/core/sse.ts';

const utf8 = new TextEncoder();

/** The fields a consumer reads; eventsource-parser leaves `event`/`id` undefined when absent. */
function simplify(events: SseEvent[]): Array<{ event: string | undefined; data: string; id: string | undefined }> {
  return events.map((e) => ({ event: e.event, data: e.data, id: e.id }));
}

function decodeChunks(chunks: Uint8Array[]): SseEvent[] {
  const decoder = new SseDecoder();
  const out: SseEvent[] = [];
  for (const chunk of chunks) out.push(...decoder.push(chunk));
  out.push(...decoder.end());
  return out;
}

/** Two chunks split at `at`. */
function splitAt(bytes: Uint8Array, at: number): Uint8Array[] {
  return [bytes.subarray(0, at), bytes.subarray(at)];
}

// multi-byte characters of 2, 3 and 4 bytes, so that splits land inside each of them
const TEXT = 'héllo 世界 🎉 done';
const STREAM = [
  sseData(JSON.stringify({ choices: [{ delta: { content: TEXT } }] })),
  ': keep-alive comment\n\n',
  sseNamed('message_start', '{"type":"message_start"}'),
  'id: 7\ndata: line one\ndata: line two 🎉\n\n',
  sseData('[DONE]'),
].join('');

const EXPECTED = [
  { event: undefined, data: JSON.stringify({ choices: [{ delta: { content: TEXT } }] }), id: undefined },
  { event: 'message_start', data: '{"type":"message_start"}', id: undefined },
  { event: undefined, data: 'line one\nline two 🎉', id: '7' },
  // eventsource-parser reports the id of the event that carried one, not the last seen id
  { event: undefined, data: '[DONE]', id: undefined },
];

describe('SseDecoder', () => {
  test('whole stream in one chunk', () => {
    assert.deepEqual(simplify(decodeChunks([utf8.encode(STREAM)])), EXPECTED);
  });

  test('the same events whatever byte offset the stream is split at (inside multi-byte UTF-8 too)', () => {
    const bytes = utf8.encode(STREAM);
    assert.ok(bytes.length > STREAM.length, 'the stream contains multi-byte characters');
    for (let at = 0; at <= bytes.length; at++) {
      assert.deepEqual(simplify(decodeChunks(splitAt(bytes, at))), EXPECTED, `split at byte ${at}`);
    }
  });

  test('one byte per chunk', () => {
    const bytes = utf8.encode(STREAM);
    const chunks = Array.from(bytes, (_, i) => bytes.subarray(i, i + 1));
    assert.deepEqual(simplify(decodeChunks(chunks)), EXPECTED);
  });

  test('events come out as soon as their blank line arrives, not before', () => {
    const decoder = new SseDecoder();
    assert.deepEqual(decoder.push(utf8.encode('data: a')), []);
    assert.deepEqual(decoder.push(utf8.encode('\n')), []);
    assert.deepEqual(simplify(decoder.push(utf8.encode('\ndata: b\n'))), [{ event: undefined, data: 'a', id: undefined }]);
    assert.deepEqual(simplify(decoder.push(utf8.encode('\n'))), [{ event: undefined, data: 'b', id: undefined }]);
  });

  for (const [name, eol] of [
    ['LF', '\n'],
    ['CRLF', '\r\n'],
    ['CR', '\r'],
  ] as const) {
    test(`${name} line endings, split at every offset`, () => {
      const text = `data: first 世界${eol}${eol}: comment${eol}${eol}event: named${eol}data: a${eol}data: b${eol}${eol}data: last${eol}${eol}`;
      const expected = [
        { event: undefined, data: 'first 世界', id: undefined },
        { event: 'named', data: 'a\nb', id: undefined },
        { event: undefined, data: 'last', id: undefined },
      ];
      const bytes = utf8.encode(text);
      for (let at = 0; at <= bytes.length; at++) {
        assert.deepEqual(simplify(decodeChunks(splitAt(bytes, at))), expected, `${name}, split at byte ${at}`);
      }
    });
  }

  test('mixed line endings inside one stream', () => {
    const events = decodeChunks([utf8.encode('data: a\r\n\ndata: b\r\rdata: c\n\r\n')]);
    assert.deepEqual(
      events.map((e) => e.data),
      ['a', 'b', 'c'],
    );
  });

  test('comments only produce no events', () => {
    assert.deepEqual(decodeChunks([utf8.encode(': ping\n\n:another\n\n: keep-alive\n\n')]), []);
  });

  test('a trailing event without its blank line is dropped at end of stream', () => {
    const events = decodeChunks([utf8.encode('data: complete\n\ndata: {"cut":'), utf8.encode('"half"}\n')]);
    assert.deepEqual(
      events.map((e) => e.data),
      ['complete'],
    );
  });

  test('a character cut off by the end of the stream never produces an event', () => {
    const bytes = utf8.encode('data: ok\n\ndata: 🎉');
    const events = decodeChunks([bytes.subarray(0, bytes.length - 2)]);
    assert.deepEqual(
      events.map((e) => e.data),
      ['ok'],
    );
  });
});

describe('sse encoders', () => {
  test('sseData and sseNamed frame one event each, decodable by SseDecoder', () => {
    assert.equal(sseData('{"a":1}'), 'data: {"a":1}\n\n');
    assert.equal(sseNamed('ping', '{}'), 'event: ping\ndata: {}\n\n');
    assert.deepEqual(simplify(decodeChunks([utf8.encode(sseNamed('ping', '{}') + sseData('x'))])), [
      { event: 'ping', data: '{}', id: undefined },
      { event: undefined, data: 'x', id: undefined },
    ]);
  });
});
