import assert from 'node:assert/strict';
import { test } from 'node:test';
import pino from 'pino';
import { isoTime, isoTimeAt } from '../../src/observability/log-time.ts';

const pinos = (ms: number) => `,"time":"${new Date(ms).toISOString()}"`;

test("the log's time reads as pino's isoTime at every millisecond, across seconds, and when the clock moves back", () => {
  const start = Date.UTC(2026, 10, 30, 23, 59, 58, 990);
  // forward through two second boundaries and a day's end, one millisecond at a time
  for (let ms = start; ms < start + 2_100; ms++) assert.equal(isoTimeAt(ms), pinos(ms));
  // the clock stepped back (NTP): a second already passed, then the same second's millisecond
  for (const ms of [start - 3_600_000, start - 3_600_000 + 999, start + 5, start + 5, Date.UTC(1969, 11, 31, 23, 59, 59, 500), 0, 253402300799999]) {
    assert.equal(isoTimeAt(ms), pinos(ms));
  }
});

test('pino writes it as its own time field', () => {
  const lines: string[] = [];
  const log = pino({ timestamp: isoTime }, { write: (line: string) => lines.push(line) });
  const before = Date.now();
  log.info('x');
  const time = Date.parse((JSON.parse(lines[0]!) as { time: string }).time);
  assert.ok(time >= before && time <= Date.now(), `${time} within [${before}, ${Date.now()}]`);
  assert.match(lines[0]!, /"time":"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z"/);
});
