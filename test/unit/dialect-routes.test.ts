// The generic dialect mount: verbs of one `…/{model}:verb` prefix from two dialects share one
// route — each verb authenticated the way its dialect reads keys, checked by its own body and
// query schemas, an unknown verb refused with the verbs served — nothing dialect-specific in http.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import Fastify from 'fastify';
import type { Principal } from '../../src/auth/key-store.ts';
import type { Dialect, DialectRoute } from '../../src/core/contracts/dialect.ts';
import { authenticationError, GatewayError } from '../../src/core/errors.ts';
import { errorHandler } from '../../src/http/error-handler.ts';
import { registerDialects } from '../../src/http/routes/dialect-routes.ts';
import type { DialectRouteDeps } from '../../src/http/routes/deps.ts';
import { validatorCompiler } from '../../src/http/validators.ts';

// the envelope comes by path from the registry: these paths are the OpenAI default's
const errors = { name: 'test', matches: () => false, render: () => ({}) };

/** a route whose decoder answers 418 with what it saw: the request reached it */
function verbRoute(path: string, required: string): DialectRoute {
  return {
    path,
    schema: { type: 'object', required: [required], properties: { [required]: { type: 'string' } } },
    operation: 'chat',
    model: (input) => input.pathModel!,
    decode: (input) => {
      throw new GatewayError({ status: 418, type: 'invalid_request_error', message: `${path} for ${input.pathModel}, bearer ${input.bearer}, alt ${String(input.query.alt)}` });
    },
  };
}

const first: Dialect = { name: 'first', errors, keys: ['x-goog-api-key'], routes: [verbRoute('/t/models/{model}:predict', 'instances')] };
const second: Dialect = {
  name: 'second',
  errors,
  keys: ['bearer'],
  routes: [{ ...verbRoute('/t/models/{model}:generate', 'contents'), query: { type: 'object', properties: { alt: { type: 'string', enum: ['sse'] } } } }],
};

async function app() {
  const principal = { accountId: 'a', key: { models: null } } as unknown as Principal;
  const deps = {
    keys: {
      authenticate: (key: string | undefined) => {
        if (key !== 'k') throw authenticationError('no key');
        return principal;
      },
    },
    ledger: { isAccountDisabled: () => false, requireHeadroom: () => undefined },
    limiter: { admitRequest: () => undefined },
    sync: { backlog: () => undefined },
    config: { defaultMaxOutputTokens: 16, media: { upstreamTimeoutMs: 1000 } },
  } as unknown as DialectRouteDeps;
  const fastify = Fastify();
  fastify.setValidatorCompiler(validatorCompiler());
  fastify.decorateRequest('principal', null);
  fastify.decorateRequest('admission', null);
  fastify.setErrorHandler(errorHandler({ log: { error: () => undefined } }));
  await registerDialects(fastify, deps, {}, [first, second]);
  return fastify;
}

test('verbs of two dialects under one prefix: each its own key place and schema', async () => {
  const fastify = await app();
  const post = (url: string, headers: Record<string, string>, payload: object) => fastify.inject({ method: 'POST', url, headers, payload });

  const predicted = await post('/t/models/m/x:predict', { 'x-goog-api-key': 'k' }, { instances: 'p' });
  assert.equal(predicted.statusCode, 418);
  assert.equal(predicted.json().error.message, '/t/models/{model}:predict for m/x, bearer false, alt undefined');
  // the second dialect reads Bearer only
  assert.equal((await post('/t/models/m:generate', { 'x-goog-api-key': 'k' }, { contents: 'c' })).statusCode, 401);
  const generated = await post('/t/models/m:generate?alt=sse', { authorization: 'Bearer k' }, { contents: 'c' });
  assert.equal(generated.statusCode, 418);
  assert.equal(generated.json().error.message, '/t/models/{model}:generate for m, bearer true, alt sse');
  assert.equal((await post('/t/models/m:generate?alt=json', { authorization: 'Bearer k' }, { contents: 'c' })).statusCode, 400);

  const invalid = await post('/t/models/m:generate', { authorization: 'Bearer k' }, { contents: 1 });
  assert.equal(invalid.statusCode, 400);
  assert.equal(invalid.json().error.param, 'contents');

  // an unknown verb: the prefix's first dialect checks the key, then the verbs served are named
  assert.equal((await post('/t/models/m:other', {}, {})).statusCode, 401);
  const unknown = await post('/t/models/m:other', { 'x-goog-api-key': 'k' }, {});
  assert.equal(unknown.statusCode, 404);
  assert.equal(unknown.json().error.message, 'There is no POST /t/models/m:other; this gateway serves {model}:predict, {model}:generate here.');
  await fastify.close();
});
