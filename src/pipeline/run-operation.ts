import type { FastifyReply } from 'fastify';
import { paidUsageBound } from '../core/paid-features.ts';
import { priceOf, type Pricing } from '../core/pricing.ts';
import { GatewayError, modelNotFound, serverError, upstreamUnavailable } from '../core/errors.ts';
import { emptyUsage } from '../core/usage.ts';
import { costHeaders, withCost } from './answer-cost.ts';
import type { OperationCodec, TargetInfo } from '../core/contracts/vendor-codec.ts';
import { relayBytes } from './relay-bytes.ts';
import { ClientGone, relayStream, transportFailure } from './relay-sse.ts';
import { recordRequest } from './request-record.ts';
import type { CircuitBreaker } from './circuit-breaker.ts';
import type { Candidate } from './router.ts';
import { offLoopCounter } from './off-loop-counter.ts';
import { settleBeforeAnswer, settleCall } from './settle-call.ts';
import { countTextTokens } from '../core/tokens/token-counter.ts';
import type { AttemptResult, AttemptScope, CallHolds, OperationRequest, PipelineDeps, RequestContext, RequestOutcome, Responded } from './types.ts';
import type { UpstreamResponse } from './upstream-client.ts';

const MAX_ERROR_BODY = 64 * 1024;
/** the cheap prompt bound is reserved only while the headroom covers this many of it */
const COMFORTABLE_HEADROOM = 16;

/**
 * One request from admission to settlement: route, reserve, try candidates in order (failing
 * over only before the client received a byte), relay the answer, then settle exactly once —
 * the delivered usage is charged, everything else released; upstream failures cost nothing.
 */
export async function runOperation<Call, Result = never>(
  deps: PipelineDeps,
  ctx: RequestContext,
  op: OperationRequest<Call, Result>,
  reply: FastifyReply,
): Promise<void> {
  const key = ctx.principal.key;
  const outcome: RequestOutcome = { status: 0, usage: null, estimated: false, providerId: null, error: null, costNano: 0 };
  const model = deps.catalogue.get(op.model);
  const state: CallHolds = { hold: undefined, holdTaken: false, shared: undefined, pricing: model.pricing, trace: deps.tracer.request(reply.request.headers, ctx, op) };
  let admittedTokens = 0;
  const clientGone = new AbortController();
  const onClose = () => {
    if (!reply.raw.writableFinished) clientGone.abort();
  };
  reply.raw.once('close', onClose);

  try {
    const candidates = deps.router.candidates(op.model, op.operation, op.bridge?.via);
    if (candidates.length === 0) {
      throw modelNotFound(op.model);
    }
    // a large prompt starts being counted off the event loop (the request was admitted before any
    // such work); it is waited for only where the count decides something: a tokens-per-minute
    // limit, or a reservation the cheap bound cannot make
    const settling = op.estimate.settle?.(offLoopCounter);
    if (settling && (key.tpm !== null || !cheapBoundSuffices(deps, ctx, op, model.pricing))) await settling;
    // the exact prompt count only where it decides something: a tokens-per-minute limit
    const estimatedTokens = key.tpm === null ? 0 : op.estimate.inputTokens + op.estimate.outputTokens;
    // each await is a turn of the event loop and a suspended frame: only when there is something to wait for
    const admission = ctx.requestCounted ? deps.limiter.admitTokens(key, estimatedTokens) : deps.limiter.admit(key, estimatedTokens);
    if (admission) Object.assign(ctx.responseHeaders, await admission);
    admittedTokens = estimatedTokens;
    const upperBound = reservationFor(deps, ctx, op, model.pricing);
    state.hold = deps.ledger.reserve(ctx.principal.accountId, key, upperBound);
    const sharing = deps.sharedHolds?.acquire(ctx.principal.accountId, upperBound, deps.ledger.balance(ctx.principal.accountId) ?? 0, deps.ledger.sharedBudgets(ctx.principal.accountId, key.id));
    if (sharing) state.shared = await sharing;
    state.trace.admitted();

    let lastFailure: GatewayError | undefined;
    // a family's refusal is the answer only when no provider failed for another reason
    let refusal: GatewayError | undefined;
    let attempts = 0;
    // the best provider whose circuit is open, tried when every one's is
    let firstSkipped: Candidate | undefined;
    const scopeFor = (candidate: Candidate, admittedAt = Date.now()): AttemptScope<Call, Result> => ({
      deps,
      ctx,
      op,
      provider: candidate.provider,
      providerLabel: candidate.provider.record.name,
      reply,
      outcome,
      holds: state,
      clientGone: clientGone.signal,
      health: new AttemptHealth(candidate.provider.breaker, admittedAt),
    });
    for (const candidate of candidates) {
      if (attempts >= deps.config.upstream.maxAttempts) break;
      if (!candidate.provider.breaker.allows()) {
        firstSkipped ??= candidate;
        continue;
      }
      const result = await attempt(scopeFor(candidate), candidate, state);
      state.trace.attemptEnded(result);
      if (result.kind === 'done') return;
      if (result.kind === 'unable') {
        refusal ??= result.error;
        continue;
      }
      attempts++;
      lastFailure = result.error;
    }
    // every provider's circuit is open: rather than refuse outright, try the best one anyway
    if (attempts === 0 && firstSkipped) {
      const result = await attempt(scopeFor(firstSkipped), firstSkipped, state);
      state.trace.attemptEnded(result);
      if (result.kind === 'done') return;
      if (result.kind === 'unable') refusal ??= result.error;
      else lastFailure = result.error;
    }
    throw lastFailure ?? refusal ?? upstreamUnavailable('No provider could serve this request. Retry later.');
  } catch (error) {
    if (error instanceof ClientGone) {
      outcome.status = 499;
      return;
    }
    outcome.status = error instanceof GatewayError ? error.status : 500;
    outcome.error = error instanceof GatewayError ? error.type : 'server_error';
    throw error;
  } finally {
    reply.raw.off('close', onClose);
    // usually settled already, before the answer's last byte; here for the calls that ended otherwise
    settleCall(deps, ctx, op, outcome, state);
    if (admittedTokens > 0) {
      const used = outcome.usage ? outcome.usage.inputTokens + outcome.usage.outputTokens : 0;
      deps.limiter.refundTokens(key, admittedTokens - used);
    }
    recordRequest(deps, ctx, op.endpoint, op.model, outcome);
    state.trace.end(outcome);
  }
}

async function attempt<Call, Result>(
  scope: AttemptScope<Call, Result>,
  candidate: Candidate,
  state: CallHolds,
): Promise<AttemptResult> {
  const { deps, op, provider, providerLabel, outcome, clientGone } = scope;
  const codec = codecOf(provider, op);
  const target: TargetInfo = { providerId: provider.record.id, upstreamModel: candidate.upstreamModel, publicModel: op.model, settings: provider.record.settings };
  let request;
  try {
    request = codec.prepare(op.call, target);
  } catch (error) {
    // this family cannot honour the request (a setting it lacks): another family may
    if (error instanceof GatewayError && error.status < 500) {
      scope.health.cancelProbe();
      return { kind: 'unable', error };
    }
    throw error;
  }
  // settings the family dropped or clamped are named in a warning header
  if (request.warnings?.length) {
    scope = { ...scope, ctx: { ...scope.ctx, responseHeaders: { ...scope.ctx.responseHeaders, 'x-modelgate-warning': request.warnings.join('; ') } } };
  }
  outcome.providerId = provider.record.id;

  state.trace.attemptStarted(provider.adapter.manifest.genAiSystem ?? provider.adapter.manifest.family, provider.record.id, candidate.upstreamModel);
  const sent = performance.now();
  let response;
  try {
    response = await deps.upstream.send(provider.upstream, {
      method: request.method ?? 'POST',
      path: request.path,
      headers: request.headers ? { ...provider.jsonHeaders, ...request.headers } : provider.jsonHeaders,
      body: request.body,
      signal: clientGone,
      ...(op.firstByteTimeoutMs !== undefined && { firstByteMs: op.firstByteTimeoutMs }),
    });
  } catch (error) {
    if (clientGone.aborted) return chargePromptOnAbort(scope);
    return transportFailure(scope, error);
  }
  state.trace.upstreamStatus(response.status);
  // observed when the attempt is over: hashing the label is not on the way to the client's first byte
  const headersAt = performance.now();
  try {
    return await answer(scope, codec, target, response, state);
  } finally {
    deps.metrics.upstreamLatency.observe(providerLabel, (headersAt - sent) / 1000);
  }
}

/** An attempt's reports to its provider's circuit breaker (AttemptScope.health): the admission time tells its result from stragglers'. */
class AttemptHealth {
  private readonly breaker: CircuitBreaker;
  private readonly admittedAt: number;

  constructor(breaker: CircuitBreaker, admittedAt: number) {
    this.breaker = breaker;
    this.admittedAt = admittedAt;
  }

  report(ok: boolean): void {
    this.breaker.record(ok, Date.now(), this.admittedAt);
  }

  cancelProbe(): void {
    this.breaker.cancelProbe();
  }
}

/** The upstream answered: an error to map (and maybe fail over), a stream or bytes to relay, or a body to decode. */
async function answer<Call, Result>(
  scope: AttemptScope<Call, Result>,
  codec: OperationCodec<Call, Result>,
  target: TargetInfo,
  response: UpstreamResponse,
  state: CallHolds,
): Promise<AttemptResult> {
  const { deps, op, provider, providerLabel, reply, outcome, clientGone, ctx } = scope;
  if (response.status >= 400) {
    const body = await response.body.readAll(MAX_ERROR_BODY).catch(() => new Uint8Array());
    const failure = codec.mapError(response.status, body, response.headers);
    // a request the vendor rejects says nothing about the vendor's health
    scope.health.report(!failure.retryable);
    if (!failure.retryable) throw failure.error;
    deps.metrics.upstreamFailures.inc({ provider: providerLabel, reason: `http_${response.status}` });
    deps.log.warn({ reqId: ctx.requestId, provider: provider.record.id, status: response.status }, 'upstream answered with an error; trying the next provider');
    return { kind: 'retry', error: failure.error };
  }

  if (codec.bytes) return relayBytes(scope, codec.bytes(op.call, target, response.headers), response.body);
  if (op.stream && codec.relay) return relayStream(scope, codec.relay(op.call, target), response.body);

  let raw: Uint8Array;
  try {
    raw = await response.body.readAll();
  } catch (error) {
    if (clientGone.aborted) return chargePromptOnAbort(scope);
    return transportFailure(scope, error);
  }
  const decoded = codec.decode(op.call, target, raw);
  scope.health.report(true);
  let answer: Responded;
  if (op.respond) {
    answer = await op.respond(decoded, { target, hold: state.hold!, shared: state.shared });
    state.holdTaken = answer.holdTaken === true;
  } else {
    if (decoded.body === undefined) throw serverError();
    answer = { body: decoded.body, contentType: decoded.contentType ?? 'application/json' };
  }
  const status = answer.status ?? response.status;
  outcome.status = status;
  let logged: Promise<void> | undefined;
  if (!state.holdTaken) {
    outcome.usage = decoded.usage ?? {
      ...emptyUsage(),
      inputTokens: op.estimate.inputTokens,
      outputTokens: countTextTokens(decoded.outputText ?? ''),
    };
    outcome.estimated = decoded.usage === null;
    // charged (and logged) before the answer goes out: see settleCall
    logged = settleBeforeAnswer(deps, ctx, op, outcome, state);
    reply.headers(costHeaders(outcome));
    // only JSON has a usage object (a text transcript could hold the words)
    if (answer.contentType.startsWith('application/json')) answer = { ...answer, body: withCost(answer.body, outcome) };
  } else {
    // the hold went to a job, settled when it ends: what it holds is the cost expected
    reply.headers(costHeaders({ costNano: state.hold!.amount, estimated: true }));
  }
  if (logged) await logged;
  reply.code(status).headers(ctx.responseHeaders).header('content-type', answer.contentType).send(answer.body);
  return { kind: 'done' };
}

/**
 * The reservation: the cheap prompt bound when the account could cover many such requests at
 * once, else the exact local count — near the limit an over-estimate would refuse requests (or
 * crowd out concurrent ones) that fit.
 */
function reservationFor<Call, Result>(deps: PipelineDeps, ctx: RequestContext, op: OperationRequest<Call, Result>, pricing: Pricing): number {
  const open = op.openOutputCap;
  // a key with a tokens-per-minute limit was admitted for the configured allowance: it keeps that cap
  if (open && ctx.principal.key.tpm === null) {
    const whole = reservationWith(deps, ctx, op, pricing, open.modelMaxTokens * open.choices);
    if (whole <= deps.ledger.headroom(ctx.principal.accountId, ctx.principal.key)) {
      open.grant(open.modelMaxTokens);
      return whole;
    }
  }
  return reservationWith(deps, ctx, op, pricing, op.estimate.outputTokens);
}

function reservationWith<Call, Result>(deps: PipelineDeps, ctx: RequestContext, op: OperationRequest<Call, Result>, pricing: Pricing, outputTokens: number): number {
  const price = (inputTokens: number) => priceOf(pricing, { ...emptyUsage(), inputTokens, outputTokens, units: op.estimate.units ?? 0, ...paidUsageBound(op.estimate.paid, inputTokens, outputTokens) }, op.meter);
  const cheap = op.estimate.inputTokensUpperBound;
  if (cheap !== undefined) {
    const bound = price(cheap);
    if (bound * COMFORTABLE_HEADROOM <= deps.ledger.headroom(ctx.principal.accountId, ctx.principal.key)) return bound;
  }
  return price(op.estimate.inputTokens);
}

/** Whether reservationFor can do with the cheap prompt bound (at the largest output it may reserve for), never reading the exact count. */
function cheapBoundSuffices<Call, Result>(deps: PipelineDeps, ctx: RequestContext, op: OperationRequest<Call, Result>, pricing: Pricing): boolean {
  const cheap = op.estimate.inputTokensUpperBound;
  if (cheap === undefined) return false;
  const open = op.openOutputCap;
  const outputTokens = open ? Math.max(open.modelMaxTokens * open.choices, op.estimate.outputTokens) : op.estimate.outputTokens;
  const bound = priceOf(pricing, { ...emptyUsage(), inputTokens: cheap, outputTokens, units: op.estimate.units ?? 0, ...paidUsageBound(op.estimate.paid, cheap, outputTokens) }, op.meter);
  return bound * COMFORTABLE_HEADROOM <= deps.ledger.headroom(ctx.principal.accountId, ctx.principal.key);
}

/**
 * The family's own codec for the operation, or the bridge's composition of the one it goes
 * through. A bridge via the operation itself (chat: composed with the client's dialect) is always used.
 */
function codecOf<Call, Result>(provider: Candidate['provider'], op: OperationRequest<Call, Result>): OperationCodec<Call, Result> {
  const own = provider.adapter.operations[op.operation];
  if (own && op.bridge?.via !== op.operation) return own as unknown as OperationCodec<Call, Result>;
  const via = op.bridge && provider.adapter.operations[op.bridge.via];
  if (!op.bridge || !via) throw new Error(`provider ${provider.record.id} cannot serve ${op.operation}`);
  return op.bridge.codecFor(via as unknown as OperationCodec<never>) as unknown as OperationCodec<Call, Result>;
}

/**
 * The client left before any answer reached it, after the request went upstream: the vendor
 * has processed (and bills) the prompt, so the prompt is charged, counted locally — where it
 * does not build the tokenizer's tables on the event loop (countAway); the hold waits for it.
 */
async function chargePromptOnAbort<Call, Result>(scope: AttemptScope<Call, Result>): Promise<never> {
  scope.health.cancelProbe();
  await scope.op.estimate.settleAway?.(offLoopCounter);
  scope.outcome.usage = { ...emptyUsage(), inputTokens: scope.op.estimate.inputTokens };
  scope.outcome.estimated = true;
  throw new ClientGone();
}
