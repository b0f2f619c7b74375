// Stored responses through a real gateway on SQLite and PostgreSQL: an answer kept by the
// write-behind is in the database after a graceful shutdown that came before its batch was due,
// and rows past the retention are swept (then read as gone); GET reads the settings the create
// call echoed, and an item_reference finds a function call by its id.
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import OpenAI from 'openai';
import { openStore } from '../../src/store/database.ts';
import { responsesRepository } from '../../src/store/repositories/responses.ts';
import { postgresDatabase, sqliteDatabase, type TestDatabase } from '../helpers/databases.ts';
import { addFamilyProvider, CHAT_MODEL } from '../helpers/families.ts';
import { startTestGateway } from '../helpers/gateway.ts';

const DAY = 86_400_000;

for (const make of [sqliteDatabase, postgresDatabase]) {
  const db: TestDatabase = make('responses');
  const fresh: TestDatabase = make('responses_refs');
  after(() => db.drop());
  after(() => fresh.drop());

  describe(`stored responses on ${db.name}`, () => {
    test('kept across a graceful shutdown; swept once past the retention', async () => {
      // the answer's batch is due shortly after it; the shutdown right after writes it if it is still pending
      const tg = await startTestGateway({ simulator: false, databaseUrl: db.url, env: { MODELGATE_RESPONSES_RETENTION_DAYS: '2' } });
      const upstream = await addFamilyProvider(tg, 'anthropic');
      const c = await tg.customer(5);
      const sdk = new OpenAI({ apiKey: c.key, baseURL: `${tg.origin}/v1`, maxRetries: 0 });
      const created = await sdk.responses.create({ model: CHAT_MODEL.anthropic, input: 'keep me' });
      await tg.close();
      await upstream.close();

      const store = await openStore(db.url);
      try {
        const repo = responsesRepository(store.db);
        const row = await repo.get(c.accountId, created.id);
        assert.ok(row, 'the answer was written on shutdown');
        assert.equal(row.keyId, c.keyId);
        assert.deepEqual(row.output, created.output);
        assert.equal(row.expiresAt, row.createdAt + 2 * DAY);
        assert.equal(await repo.get('another-account', created.id), undefined);
      } finally {
        await store.close();
      }

      const again = await startTestGateway({ simulator: false, databaseUrl: db.url });
      try {
        const keeper = again.gateway.responses;
        assert.equal(await keeper.sweep(Date.now()), 0, 'nothing expired yet');
        assert.ok((await keeper.get(c.accountId, created.id)) !== undefined);
        assert.equal(await keeper.sweep(Date.now() + 3 * DAY), 1);
        assert.equal(await keeper.get(c.accountId, created.id), undefined);
      } finally {
        await again.close();
      }
    });

    test('GET reads back the echoed settings; an item_reference to a function call is found', async () => {
      const tg = await startTestGateway({ simulator: false, databaseUrl: fresh.url });
      let upstream: Awaited<ReturnType<typeof addFamilyProvider>> | undefined;
      try {
        upstream = await addFamilyProvider(tg, 'anthropic');
        const c = await tg.customer(5);
        const sdk = new OpenAI({ apiKey: c.key, baseURL: `${tg.origin}/v1`, maxRetries: 0 });
        const tools: OpenAI.Responses.Tool[] = [{ type: 'function', name: 'get_weather', strict: true, parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'], additionalProperties: false } }];
        const asked = await sdk.responses.create({ model: CHAT_MODEL.anthropic, input: 'Weather in Paris?', tools, temperature: 0.5, metadata: { on: db.name } });
        const got = await sdk.responses.retrieve(asked.id);
        assert.deepEqual({ tools: got.tools, temperature: got.temperature, metadata: got.metadata }, { tools: asked.tools, temperature: 0.5, metadata: { on: db.name } });
        const call = asked.output.find((item) => item.type === 'function_call') as OpenAI.Responses.ResponseFunctionToolCall | undefined;
        assert.ok(call?.id, JSON.stringify(asked.output));
        const next = await sdk.responses.create({ model: CHAT_MODEL.anthropic, tools, input: [{ role: 'user', content: 'Weather in Paris?' }, { type: 'item_reference', id: call.id }, { type: 'function_call_output', call_id: call.call_id, output: 'sunny' }] });
        assert.match(next.output_text, /Tool result: .*sunny/);
      } finally {
        await tg.close();
        await upstream?.close();
      }
    });
  });
}
