import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { CatalogueModel } from '../../core/contracts/catalogue-model.ts';
import type { Principal } from '../../auth/key-store.ts';
import type { Decoded, DecodeContext, Dialect, DialectRoute, RouteInput } from '../../core/contracts/dialect.ts';
import type { StoredRefs, StoredResponses } from '../../core/contracts/stored-responses.ts';
import type { DecodedResponse, MessagesCall } from '../../core/contracts/vendor-codec.ts';
import { modelNotFound, notFound } from '../../core/errors.ts';
import type { ChatOutput } from '../../core/ir/output.ts';
import { modelParam } from '../../core/model-param.ts';
import { bodyBytesOf } from '../../core/tokens/prompt-estimate.ts';
import { countTextTokens, type TextCounter } from '../../core/tokens/token-counter.ts';
import { dialects } from '../../dialects/registry.ts';
import { chatThrough } from '../../pipeline/chat-codec.ts';
import { messagesThroughChat } from '../../pipeline/messages-bridge.ts';
import { offLoopCounter } from '../../pipeline/off-loop-counter.ts';
import { runOperation } from '../../pipeline/run-operation.ts';
import type { OperationBridge, OperationRequest } from '../../pipeline/types.ts';
import { admitBeforeWork } from '../admission.ts';
import { authenticateWith, checkModelAllowed, hasBearerToken, keyFrom } from '../authenticate.ts';
import { contextOf } from '../request-context.ts';
import type { DialectRouteDeps } from './deps.ts';
import type { WildcardParams } from './params.ts';

/** Routes of a dialect that are not a plain decode → pipeline (uploads, jobs, listings), registered in its scope. */
export type ExtraRoutes = (scope: FastifyInstance) => Promise<void> | void;

/**
 * Every dialect of src/dialects/registry.ts, mounted the same way: a scope per dialect that reads
 * the key from the dialect's places (onRequest, before the body is read) and admits the request
 * (preHandler: rate limit, balance); then each route's schema, the key's model allowlist, the
 * texts counted (off the event loop when large), the dialect's decoder, and the pipeline.
 * `extras` adds a dialect's hand-written routes to its scope; `list` is the registry's (tests pass their own).
 */
export async function registerDialects(
  app: FastifyInstance,
  deps: DialectRouteDeps,
  extras: Partial<Record<string, ExtraRoutes>> = {},
  list: readonly Dialect[] = dialects,
): Promise<void> {
  for (const name of Object.keys(extras)) if (!list.some((dialect) => dialect.name === name)) throw new Error(`extra routes for "${name}", which is not in the dialect registry`);
  const admit = admitBeforeWork(deps);
  const byPrefix = new Map<string, Map<string, VerbRoute>>();
  for (const dialect of list) {
    const authenticate = authenticateWith(deps, keyFrom(dialect.keys));
    const plain: DialectRoute[] = [];
    for (const route of dialect.routes) {
      const verbPath = VERB_PATH.exec(route.path);
      if (!verbPath) {
        plain.push(route);
        continue;
      }
      const [, prefix, verb] = verbPath as unknown as [string, string, string];
      const verbs = byPrefix.get(prefix) ?? new Map<string, VerbRoute>();
      if (verbs.has(verb)) throw new Error(`${route.path} is declared twice (dialect ${dialect.name})`);
      verbs.set(verb, { route, authenticate });
      byPrefix.set(prefix, verbs);
    }
    await app.register(async (scope) => {
      scope.addHook('onRequest', authenticate);
      scope.addHook('preHandler', admit);
      for (const route of plain) scope.post(route.path, { schema: schemaOf(route) }, (request, reply) => serve(deps, route, request, reply, undefined));
      await extras[dialect.name]?.(scope);
    });
  }
  for (const [prefix, verbs] of byPrefix) mountVerbs(app, prefix, verbs, deps, admit);
}

/** `…/{model}:verb`: the verbs of one prefix share a wildcard route (model ids may contain slashes), whichever dialects they belong to. */
const VERB_PATH = /^(.*\/)\{model\}:([A-Za-z]+)$/;

interface VerbRoute {
  route: DialectRoute;
  /** its dialect's key check: the shared route runs the one of the verb asked for */
  authenticate: ReturnType<typeof authenticateWith>;
}

function verbOf(target: string): { model: string; verb: string } {
  const colon = target.lastIndexOf(':');
  return colon > 0 ? { model: target.slice(0, colon), verb: target.slice(colon + 1) } : { model: target, verb: '' };
}

function mountVerbs(app: FastifyInstance, prefix: string, verbs: Map<string, VerbRoute>, deps: DialectRouteDeps, admit: ReturnType<typeof admitBeforeWork>): void {
  // one verb: its schemas are the route's; several: each verb's body and query are checked once the verb is known
  const only = verbs.size === 1 ? [...verbs.values()][0]!.route : undefined;
  // an unknown verb is refused after the key check of the prefix's first dialect
  const first = [...verbs.values()][0]!;
  const served = [...verbs.keys()].map((verb) => `{model}:${verb}`).join(', ');
  app.post<WildcardParams>(
    `${prefix}*`,
    {
      ...(only && { schema: schemaOf(only) }),
      onRequest: (request, reply, done) => (verbs.get(verbOf(request.params['*']).verb) ?? first).authenticate(request, reply, done),
      preHandler: admit,
    },
    async (request, reply) => {
      const target = request.params['*'];
      const { model, verb } = verbOf(target);
      const route = verbs.get(verb)?.route;
      if (!route) throw notFound(`There is no POST ${prefix}${target}; this gateway serves ${served} here.`, null, 'unknown_path');
      modelParam(model);
      if (!only) validate(request, route);
      return serve(deps, route, request, reply, model);
    },
  );
}

const schemaOf = (route: DialectRoute) => ({ body: route.schema, ...(route.query && { querystring: route.query }) });

/** A body and query checked by the route's validator compiler, refused as Fastify refuses a schema's (400 naming the field). */
function validate(request: FastifyRequest, route: DialectRoute): void {
  for (const [part, schema, data] of [['body', route.schema, request.body], ['querystring', route.query, request.query]] as const) {
    if (!schema) continue;
    const check = request.compileValidationSchema(schema, part);
    if (!check(data)) throw Object.assign(new Error(`The request ${part} does not match its schema.`), { statusCode: 400, validation: check.errors });
  }
}

async function serve(deps: DialectRouteDeps, route: DialectRoute, request: FastifyRequest, reply: FastifyReply, pathModel: string | undefined): Promise<unknown> {
  const input: RouteInput<unknown> = { body: request.body, query: request.query as Record<string, unknown>, pathModel, headers: request.headers, bodyBytes: bodyBytesOf(request.headers), bearer: hasBearerToken(request) };
  const principal = request.principal!;
  const named = route.model(input);
  if (route.precheck) {
    checkModelAllowed(principal, named);
    if (route.precheck === 'served' && !deps.router.serves(named)) throw modelNotFound(named);
  }
  const stored = route.storedRefs && deps.responses ? await storedResponses(deps.responses, principal, route.storedRefs(input)) : undefined;
  let count: TextCounter = countTextTokens;
  if (route.countsTexts) {
    const counter = offLoopCounter.counterFor((collect) => route.decode(input, new RouteContext(deps, named, collect, stored)), input.bodyBytes);
    count = typeof counter === 'function' ? counter : await counter;
  }
  const decoded = route.decode(input, new RouteContext(deps, named, count, stored));
  if (!route.precheck) checkModelAllowed(principal, decoded.model);

  if (route.countLocally && (route.countLocally.always === true || deps.router.candidates(decoded.model, route.operation).length === 0)) {
    if (!deps.router.serves(decoded.model)) throw modelNotFound(decoded.model);
    const counted = offLoopCounter.countPrompt(input.body, route.countLocally.measure, input.bodyBytes);
    const tokens = typeof counted === 'number' ? counted : await counted;
    reply.header('x-request-id', request.correlationId);
    if (request.admission) reply.headers(request.admission);
    return route.countLocally.answer(tokens);
  }
  await runOperation(deps, contextOf(request), operationOf(deps, route, decoded), reply);
  return reply;
}

/** The account's stored responses a request refers to, and where its answer is kept (under the key that asked). */
async function storedResponses(keeper: NonNullable<DialectRouteDeps['responses']>, principal: Principal, refs: StoredRefs): Promise<StoredResponses> {
  const { found, itemOwners } = await keeper.load(principal.accountId, refs);
  return { found, itemOwners, save: (turn) => keeper.save(principal.accountId, principal.key.id, turn) };
}

/** The operation for the pipeline, built field by field: every request's has the same shape. */
function operationOf(deps: DialectRouteDeps, route: DialectRoute, decoded: Decoded<unknown>): OperationRequest<unknown, unknown> {
  const { output, answer } = decoded;
  return {
    operation: route.operation,
    endpoint: route.path,
    model: decoded.model,
    call: decoded.call,
    stream: decoded.stream,
    estimate: decoded.estimate,
    openOutputCap: decoded.openOutputCap,
    meter: decoded.meter,
    bridge: output && bridgeOf(route, output),
    firstByteTimeoutMs: route.media ? deps.config.media.upstreamTimeoutMs : undefined,
    // an operation without a neutral result (embeddings) hands the encoder the codec's body
    respond: answer && (async (result: DecodedResponse<unknown>) => ({ body: answer((result.result ?? result.body) as never), contentType: 'application/json' })),
  };
}

/**
 * What a route's decoder sees beside the request (DecodeContext): a class, so that every request's
 * is one object of one shape; the catalogue is read when a decoder first asks for the model.
 */
class RouteContext implements DecodeContext {
  readonly count: TextCounter;
  readonly offLoop = offLoopCounter;
  readonly defaultMaxOutputTokens: number;
  readonly stored: StoredResponses | undefined;
  private readonly catalogue: DialectRouteDeps['catalogue'];
  private readonly named: string;
  private catalogued: CatalogueModel | undefined;

  constructor(deps: DialectRouteDeps, named: string, count: TextCounter, stored: StoredResponses | undefined) {
    this.catalogue = deps.catalogue;
    this.named = named;
    this.count = count;
    this.defaultMaxOutputTokens = deps.config.defaultMaxOutputTokens;
    this.stored = stored;
  }

  get model(): CatalogueModel {
    return (this.catalogued ??= this.catalogue.get(this.named));
  }
}

/** A chat request composes the client's encoder with the family's chat codec; another operation with an encoder is served through chat where a family lacks it. */
function bridgeOf(route: DialectRoute, output: ChatOutput): OperationBridge<unknown> {
  if (route.operation === 'chat') return chatThrough(output) as OperationBridge<unknown>;
  let bridge = throughChat.get(output);
  if (!bridge) throughChat.set(output, (bridge = messagesThroughChat(output)));
  return bridge as OperationBridge<unknown>;
}

/** one bridge per client encoder: it caches the codecs it composes */
const throughChat = new WeakMap<ChatOutput, OperationBridge<MessagesCall>>();
