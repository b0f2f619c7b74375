// The handshake answer never carries the client's key (issue 18): a client that offers its key as
// the `openai-insecure-api-key.` subprotocol gets `realtime` (or another subprotocol it offered)
// back, and when the key subprotocol is the only one it offered, no subprotocol at all.
import assert from 'node:assert/strict';
import type { IncomingMessage } from 'node:http';
import { after, before, test } from 'node:test';
import { WebSocket } from 'ws';
import { DEFAULT_MODELS, startTestGateway, type TestGateway } from '../helpers/gateway.ts';
import { noSessions, realtimeUrl, REALTIME_MODELS } from '../helpers/realtime.ts';

let tg: TestGateway;
before(async () => {
  tg = await startTestGateway({ models: [...DEFAULT_MODELS, ...REALTIME_MODELS] });
});
after(async () => {
  await tg.close();
});

/** the gateway's answer to an upgrade offering `protocols`, whatever the client then makes of it */
function handshakeAnswer(protocols: string[]): Promise<{ status: number; protocol: string | undefined; socket: WebSocket }> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(realtimeUrl(tg, 'gpt-realtime'), protocols);
    ws.on('error', () => undefined);
    ws.once('upgrade', (res: IncomingMessage) => {
      const header = res.headers['sec-websocket-protocol'];
      resolve({ status: res.statusCode ?? 0, protocol: typeof header === 'string' ? header : undefined, socket: ws });
    });
    ws.once('unexpected-response', (_req, res) => reject(new Error(`handshake answered ${res.statusCode}`)));
  });
}

test('the key subprotocol alone: the upgrade is answered without any subprotocol, so the key is not echoed', async () => {
  const customer = await tg.customer(5);
  const answer = await handshakeAnswer([`openai-insecure-api-key.${customer.key}`]);
  assert.equal(answer.status, 101, 'the key was accepted');
  assert.equal(answer.protocol, undefined, 'no subprotocol named in the answer');
  answer.socket.terminate();
  await noSessions(tg);
  await tg.assertBillingInvariants(customer.accountId);
});

test('the key subprotocol beside others: the answer names one of the others', async () => {
  const customer = await tg.customer(5);
  for (const [offered, expected] of [
    [['realtime', `openai-insecure-api-key.${customer.key}`], 'realtime'],
    [[`openai-insecure-api-key.${customer.key}`, 'openai-beta.realtime-v1'], 'openai-beta.realtime-v1'],
  ] as const) {
    const answer = await handshakeAnswer([...offered]);
    assert.equal(answer.status, 101);
    assert.equal(answer.protocol, expected);
    assert.ok(!String(answer.protocol).includes(customer.key));
    answer.socket.close();
  }
  await noSessions(tg);
  await tg.assertBillingInvariants(customer.accountId);
});
