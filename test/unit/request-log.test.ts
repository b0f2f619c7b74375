import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { test } from 'node:test';
import { createLogger, RequestLog } from '../../src/observability/logger.ts';

/** A destination that keeps every line written to it. */
function capture(): { stream: Writable; lines: string[] } {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      lines.push(...String(chunk).split('\n').filter((line) => line !== ''));
      done();
    },
  });
  return { stream, lines };
}

const withoutTime = (line: string) => line.replace(/"time":"[^"]+"/, '"time":"T"');

test("the request line is pino's own line for the same fields, byte for byte but the time", () => {
  const { stream, lines } = capture();
  const log = createLogger('info', stream);
  const fields = {
    reqId: 'req_0123456789abcdef0123456789abcdef',
    keyId: 'key_x',
    accountId: 'acct_y',
    endpoint: '/v1/chat/completions',
    model: 'gpt-4o-mini "quoted" \\ ünïcode 🙂',
    provider: null,
    status: 200,
    promptTokens: 34,
    completionTokens: 36,
    cachedTokens: 0,
    costUsd: 0.0000267,
    estimated: false,
    latencyMs: 53,
    absent: undefined,
    error: 'line\nbreak',
  };
  log.info(fields, 'request');
  new RequestLog(log).write(fields, 'request');
  assert.equal(lines.length, 2);
  assert.equal(withoutTime(lines[1]!), withoutTime(lines[0]!));
  const parsed = JSON.parse(lines[1]!) as Record<string, unknown>;
  assert.equal(parsed.service, 'modelgate');
  assert.equal(parsed.model, fields.model);
  assert.ok(!Number.isNaN(Date.parse(parsed.time as string)));
});

test('the request line follows the log level', () => {
  const { stream, lines } = capture();
  const log = createLogger('warn', stream);
  new RequestLog(log).write({ reqId: 'req_1' }, 'request');
  log.level = 'info';
  new RequestLog(log).write({ reqId: 'req_2' }, 'request');
  assert.deepEqual(lines.map((line) => (JSON.parse(line) as { reqId: string }).reqId), ['req_2']);
});
