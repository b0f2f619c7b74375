// Body limits per route (issue 17): the console took 32 MiB of JSON from anyone, signed in or not.
// Before sign-in a console request carries at most 64 KiB; signed in, the console and admin APIs
// take 1 MiB; /v1 keeps MODELGATE_MAX_BODY_BYTES. Past a limit: 413 in the route's envelope.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import OpenAI from 'openai';
import { ADMIN_TOKEN } from '../helpers/gateway.ts';
import { PASSWORD, startConsoleGateway, type ConsoleGateway } from '../helpers/console.ts';

let tg: ConsoleGateway;
before(async () => {
  tg = await startConsoleGateway();
});
after(() => tg.close());

/** Valid JSON padded with whitespace to `size` bytes: only its size can be wrong. */
const padded = (value: unknown, size: number) => {
  const json = JSON.stringify(value);
  return json + ' '.repeat(Math.max(0, size - json.length));
};

function assertTooLarge(res: { status: number; body: any }) {
  assert.equal(res.status, 413, JSON.stringify(res.body));
  assert.equal(res.body.error.type, 'invalid_request_error');
  assert.equal(res.body.error.code, 'request_too_large');
  assert.equal(typeof res.body.error.message, 'string');
}

async function post(path: string, body: BodyInit, headers: Record<string, string> = {}) {
  const res = await fetch(tg.origin + path, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: tg.origin, ...headers },
    body,
    ...(body instanceof ReadableStream && { duplex: 'half' }),
  } as RequestInit);
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
}

describe('the console before sign-in', () => {
  test('sign-in with a 100 KB body: 413; the same credentials in a normal body sign in', async () => {
    const { email } = await tg.registerCustomer();
    assertTooLarge(await post('/console/api/auth/login', padded({ email, password: PASSWORD }, 100_000)));
    const ok = await post('/console/api/auth/login', JSON.stringify({ email, password: PASSWORD }));
    assert.equal(ok.status, 200, JSON.stringify(ok.body));
  });

  test('a chunked body (no length declared) is counted as it arrives', async () => {
    const chunk = new TextEncoder().encode(' '.repeat(16 * 1024));
    let sent = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent === 0) controller.enqueue(new TextEncoder().encode('{"email":"a@example.test","password":"x"}'));
        if (sent++ < 8) controller.enqueue(chunk);
        else controller.close();
      },
    });
    assertTooLarge(await post('/console/api/auth/login', body));
  });

  test('sign-up and the operator-token sign-in: 413 past 64 KiB', async () => {
    assertTooLarge(await post('/console/api/auth/register', padded({ email: 'big@example.test', password: PASSWORD }, 100_000)));
    assertTooLarge(await post('/console/api/auth/operator-token', padded({ admin_token: ADMIN_TOKEN, email: 'ops@example.test', password: PASSWORD }, 100_000)));
  });

  test('a route that needs a session, tried without one: 413 before the 401', async () => {
    assertTooLarge(await post('/console/api/keys', padded({ name: 'k' }, 100_000)));
  });
});

describe('signed in', () => {
  test('the console API takes a few hundred KB and refuses 2 MiB', async () => {
    const { client } = await tg.registerCustomer();
    const fine = await client.call('PATCH', '/console/api/profile', padded({ name: 'Ada' }, 200_000));
    assert.equal(fine.status, 200, fine.text);
    assertTooLarge(await client.call('PATCH', '/console/api/profile', padded({ name: 'Ada' }, 2 * 1024 * 1024)));
  });

  test('the admin API refuses 2 MiB', async () => {
    assertTooLarge(await post('/admin/accounts', padded({ name: 'big' }, 2 * 1024 * 1024), { authorization: `Bearer ${ADMIN_TOKEN}` }));
    const fine = await post('/admin/accounts', padded({ name: 'small' }, 200_000), { authorization: `Bearer ${ADMIN_TOKEN}` });
    assert.equal(fine.status, 201, JSON.stringify(fine.body));
  });

  test('/v1 still takes a 2 MiB prompt', async () => {
    const customer = await tg.customer(5);
    const client = new OpenAI({ apiKey: customer.key, baseURL: tg.baseURL, maxRetries: 0 });
    const reply = await client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'word '.repeat(400_000) }] });
    assert.ok(reply.choices[0]!.message.content);
  });
});
