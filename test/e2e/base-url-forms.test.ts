// A provider saved in any base URL form its vendor's SDKs document (with or without the version
// segment, with a trailing slash) is stored and shown in one form, and chats through it reach the
// family's simulator. Rows saved in another form before normalisation heal as they load.
import assert from 'node:assert/strict';
import OpenAI from 'openai';
import { after, before, describe, test } from 'node:test';
import { nextSeq } from '../../src/store/seq.ts';
import { providerBaseUrl } from '../../src/vendors/registry.ts';
import { CHAT_MODEL, FAMILIES, startFamilySimulator, type FamilyName } from '../helpers/families.ts';
import { startTestGateway, type Customer, type TestGateway } from '../helpers/gateway.ts';

const SEGMENT: Record<FamilyName, string> = { openai: '/v1', anthropic: '/v1', gemini: '/v1beta' };

describe('base URL forms', () => {
  test('each family: a bare origin gets its version segment; a path is kept; trailing slashes go', () => {
    const cases: Array<[family: string, given: string, stored: string]> = [
      ['openai', 'https://api.openai.com', 'https://api.openai.com/v1'],
      ['openai', 'https://api.openai.com/', 'https://api.openai.com/v1'],
      ['openai', 'https://api.openai.com/v1/', 'https://api.openai.com/v1'],
      ['openai', 'http://localhost:11434/v1', 'http://localhost:11434/v1'],
      ['openai', 'https://example.openai.azure.com/openai/v1', 'https://example.openai.azure.com/openai/v1'],
      ['anthropic', 'https://api.anthropic.com', 'https://api.anthropic.com/v1'],
      ['anthropic', 'https://api.anthropic.com/v1//', 'https://api.anthropic.com/v1'],
      ['gemini', 'https://generativelanguage.googleapis.com', 'https://generativelanguage.googleapis.com/v1beta'],
      ['gemini', 'https://generativelanguage.googleapis.com/v1beta/', 'https://generativelanguage.googleapis.com/v1beta'],
      ['gemini', 'https://generativelanguage.googleapis.com/v1', 'https://generativelanguage.googleapis.com/v1'],
      ['cohere', 'https://api.cohere.com/', 'https://api.cohere.com'],
    ];
    for (const [family, given, stored] of cases) assert.equal(providerBaseUrl(family, given), stored, `${family} ${given}`);
  });

  let tg: TestGateway;
  let customer: Customer;
  const sims: Array<{ close(): Promise<void> }> = [];
  before(async () => {
    tg = await startTestGateway({ simulator: false });
    customer = await tg.customer(50);
  });
  after(async () => {
    for (const sim of sims) await sim.close();
    await tg?.close();
  });

  const chatStatus = async (model: string) => {
    const client = new OpenAI({ apiKey: customer.key, baseURL: tg.baseURL, maxRetries: 0 });
    try {
      const reply = await client.chat.completions.create({ model, messages: [{ role: 'user', content: 'hello' }], max_tokens: 20 });
      assert.ok(reply.choices[0]?.message.content);
      return 200;
    } catch (error) {
      return (error as { status?: number }).status ?? -1;
    }
  };

  for (const family of FAMILIES) {
    test(`${family}: saved without the version segment, with it, or with a trailing slash, it is stored as …${SEGMENT[family]} and chats reach the simulator`, async () => {
      const sim = await startFamilySimulator(family, `key-${family}`);
      sims.push(sim);
      const origin = `http://127.0.0.1:${sim.port}`;
      const expected = `${origin}${SEGMENT[family]}`;
      for (const form of [origin, `${origin}/`, `${expected}/`, expected]) {
        const created = await tg.admin('POST', '/admin/providers', { name: `${family}-form`, type: family, base_url: form, api_key: `key-${family}`, models: [CHAT_MODEL[family]] });
        assert.equal(created.status, 201, JSON.stringify(created.body));
        assert.equal(created.body.base_url, expected, `${form} is saved normalised`);
        assert.equal((await tg.admin('GET', `/admin/providers/${created.body.id}`)).body.base_url, expected, `${form} is shown normalised`);
        assert.equal(await chatStatus(CHAT_MODEL[family]), 200, `a chat through ${form} reaches the simulator`);

        // changed through PATCH to the bare form: normalised the same way
        const patched = await tg.admin('PATCH', `/admin/providers/${created.body.id}`, { base_url: `${origin}/` });
        assert.equal(patched.body.base_url, expected);
        assert.equal((await tg.admin('DELETE', `/admin/providers/${created.body.id}`)).status, 200);
      }
    });
  }

  test('a provider row stored in the bare form (before normalisation) is loaded, shown and used as …/v1', async () => {
    const sim = await startFamilySimulator('anthropic', 'key-old');
    sims.push(sim);
    const origin = `http://127.0.0.1:${sim.port}`;
    const created = await tg.admin('POST', '/admin/providers', { name: 'old-row', type: 'anthropic', base_url: `${origin}/v1`, api_key: 'key-old', models: [CHAT_MODEL.anthropic] });
    assert.equal(created.status, 201);
    // the row as an older version wrote it; the change counter makes every instance reload it
    const db = tg.gateway.store.db;
    await db.transaction().execute(async (trx) => {
      await trx.updateTable('providers').set({ base_url: origin, seq: await nextSeq(trx) }).where('id', '=', created.body.id).execute();
    });
    await tg.gateway.sync.refresh();
    assert.equal(tg.gateway.router.get(created.body.id)?.record.baseUrl, `${origin}/v1`);
    assert.equal((await tg.admin('GET', `/admin/providers/${created.body.id}`)).body.base_url, `${origin}/v1`);
    assert.equal(await chatStatus(CHAT_MODEL.anthropic), 200);
    await tg.assertBillingInvariants(customer.accountId);
  });
});
