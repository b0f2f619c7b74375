// Every case the suite draws, weighted: mostly client routes, a share of operator routes, a few
// requests whose simulator is told to fail, and a small number of realtime sessions.
import fc from 'fast-check';
import { routeCases } from './mutate.ts';
import { realtimeCases } from './realtime-frames.ts';
import type { FuzzCase, FuzzRequest } from './request.ts';
import { multipartCases } from './routes-multipart.ts';
import { NATIVE_ROUTES, predictPaths } from './routes-native.ts';
import { CHAT_MODELS, modelsArbitrary, OPENAI_ROUTES, text } from './routes-openai.ts';
import { OPERATOR_ROUTES, readCases } from './routes-operator.ts';

/** Valid requests whose upstream answers with a 5xx: a 5xx is allowed, a charge is not. */
const failingCases: fc.Arbitrary<FuzzRequest> = fc
  .record({ model: fc.constantFrom(...CHAT_MODELS), status: fc.constantFrom(500, 502, 503), prompt: text(3), messages: fc.boolean() })
  .map(({ model, status, prompt, messages }) => ({
    route: messages ? 'POST /v1/messages' : 'POST /v1/chat/completions',
    method: 'POST',
    path: messages ? '/v1/messages' : '/v1/chat/completions',
    dialect: messages ? 'messages' : 'openai',
    principal: 'failing',
    ...(messages && { headers: { 'anthropic-version': '2023-06-01' } }),
    body: { kind: 'json', value: { model, max_tokens: 8, messages: [{ role: 'user', content: `${prompt} [[sim:status=${status}]]` }] } },
    simFails: true,
    mutation: `the simulator answers ${status}`,
  }));

const getCases: fc.Arbitrary<FuzzRequest> = fc.oneof(
  modelsArbitrary.map(({ path, mutation }) => ({ route: 'GET /v1/models', method: 'GET', path, dialect: 'openai' as const, principal: 'broken' as const, body: { kind: 'none' as const }, mutation })),
  predictPaths.map((path) => ({ route: 'POST /v1beta/models/{model}:predict', method: 'POST', path, dialect: 'google' as const, principal: 'broken' as const, body: { kind: 'json' as const, value: { instances: [{ prompt: 'x' }] } }, mutation: `path ${path.slice(0, 60)}` })),
);

export const anyCase: fc.Arbitrary<FuzzCase> = fc.oneof(
  ...OPENAI_ROUTES.map((spec) => ({ arbitrary: routeCases(spec), weight: spec.path === '/v1/chat/completions' ? 8 : 4 })),
  ...NATIVE_ROUTES.map((spec) => ({ arbitrary: routeCases(spec), weight: spec.path === '/v1/messages' ? 6 : 3 })),
  { arbitrary: multipartCases, weight: 4 },
  ...OPERATOR_ROUTES.map((spec) => ({ arbitrary: routeCases(spec), weight: 1 })),
  { arbitrary: readCases, weight: 3 },
  { arbitrary: getCases, weight: 2 },
  { arbitrary: failingCases, weight: 2 },
  { arbitrary: realtimeCases, weight: 1 },
);
