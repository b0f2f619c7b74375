import { upstreamUnavailable } from '../core/errors.ts';
import { emptyUsage } from '../core/usage.ts';
import { SseDecoder } from '../core/sse.ts';
import { KeepAliveTicker, StreamSink } from './client-sink.ts';
import { relayEvents, type StreamRelay } from '../core/contracts/vendor-codec.ts';
import { withCost } from './answer-cost.ts';
import { offLoopCounter } from './off-loop-counter.ts';
import { settleBeforeAnswer } from './settle-call.ts';
import type { AttemptResult, AttemptScope, UpstreamBodyStream } from './types.ts';
import { UpstreamTransportError } from './upstream-client.ts';

/** Thrown inside an attempt when the client left: no failover, no error answer. */
export class ClientGone extends Error {}

export const keepAlive = new KeepAliveTicker();

/** An SSE answer: relayed event by event through the codec's relay, usage watched on the side. */
export async function relayStream<Call, Result>(scope: AttemptScope<Call, Result>, relay: StreamRelay, body: UpstreamBodyStream): Promise<AttemptResult> {
  const { deps, ctx, op, reply, outcome, clientGone, providerLabel } = scope;
  const sink = new StreamSink(reply.raw);
  // only relays without a byte path decode events here
  let decoder: SseDecoder | undefined;
  const commit = () => {
    reply.hijack();
    sink.commit(ctx.responseHeaders, relay.contentType);
    keepAlive.add(sink);
  };
  const finish = (text: string) => {
    keepAlive.delete(sink);
    sink.end(text);
  };
  // events written as they come; once the upstream has sent everything, kept for the end's write
  // (one system call fewer), which waits for the settlement. Not a stream's first bytes while it
  // is the only call in flight: no other call would get the time the write saves, and its first
  // byte would wait for the settlement (~0.15 ms on a core the upstream's wait left cold).
  const deliver = (out: string | Uint8Array) => {
    if (!sink.committed) {
      commit();
      if (deps.ledger.openReservations <= 1) return sink.write(out);
    }
    if (!body.complete) return sink.write(out);
    sink.hold(out);
    return undefined;
  };

  try {
    for await (const chunk of body) {
      const out = relay.onChunk ? relay.onChunk(chunk) : relayEvents(relay, (decoder ??= new SseDecoder()).push(chunk));
      if (relay.failed) break;
      if (out.length > 0) {
        const draining = deliver(out);
        if (draining) await draining;
        if (clientGone.aborted) break;
      }
    }
    if (!relay.failed && !clientGone.aborted) {
      const tail = relay.onChunkEnd ? relay.onChunkEnd() : relayEvents(relay, (decoder ??= new SseDecoder()).end());
      if (tail.length > 0 && !relay.failed) {
        const draining = deliver(tail);
        if (draining) await draining;
      }
    }
  } catch (error) {
    if (!clientGone.aborted) {
      if (!sink.committed) return transportFailure(scope, error);
      const failure = upstreamUnavailable('The upstream provider stopped responding mid-stream.', 502, 'upstream_stream_interrupted');
      deps.metrics.upstreamFailures.inc({ provider: providerLabel, reason: 'stream_interrupted' });
      scope.health.report(false);
      outcome.status = 502;
      outcome.error = failure.type;
      finish(relay.errorEvent(failure));
      return { kind: 'done' };
    }
  } finally {
    body.destroy();
  }

  if (clientGone.aborted) {
    // the client left: bill what reached it; the vendor's usage if it came, else a local count.
    // Vendors that report usage as the stream goes (input up front, output later) may have
    // reported less output than was delivered: the larger of the two is billed.
    keepAlive.delete(sink);
    scope.health.cancelProbe();
    const reported = relay.end().usage;
    // counted where the tokenizer's tables need not be built on the event loop (countAway)
    const counted = offLoopCounter.countAway((count) => relay.deliveredOutputTokens(count));
    const delivered = typeof counted === 'number' ? counted : await counted;
    if (!reported) await op.estimate.settleAway?.(offLoopCounter);
    outcome.status = 499;
    outcome.usage = reported
      ? { ...reported, outputTokens: Math.max(reported.outputTokens, delivered) }
      : { ...emptyUsage(), inputTokens: op.estimate.inputTokens, outputTokens: delivered };
    outcome.estimated = reported === null || delivered > reported.outputTokens;
    return { kind: 'done' };
  }

  const end = relay.end();
  const failure = relay.failed ?? (end.complete ? undefined : upstreamUnavailable('The upstream provider ended the stream early.', 502, 'upstream_stream_truncated'));
  if (failure) {
    scope.health.report(false);
    deps.metrics.upstreamFailures.inc({ provider: providerLabel, reason: 'stream_failed' });
    if (!sink.committed) return { kind: 'retry', error: failure };
    // never end a broken stream as if it were complete: an in-band error, no terminator, no charge
    outcome.status = 502;
    outcome.error = failure.type;
    finish(relay.errorEvent(failure));
    return { kind: 'done' };
  }

  scope.health.report(true);
  if (!sink.committed) commit();
  outcome.status = 200;
  outcome.usage = end.usage ?? { ...emptyUsage(), inputTokens: op.estimate.inputTokens, outputTokens: relay.deliveredOutputTokens() };
  outcome.estimated = end.usage === null;
  const logged = settleBeforeAnswer(deps, ctx, op, outcome, scope.holds);
  if (logged) await logged;
  finish(withCost(end.trailer(outcome.usage), outcome));
  return { kind: 'done' };
}

export function transportFailure<Call, Result>(scope: AttemptScope<Call, Result>, error: unknown): AttemptResult {
  const { deps, provider, providerLabel } = scope;
  scope.health.report(false);
  const kind = error instanceof UpstreamTransportError ? error.kind : 'network';
  deps.metrics.upstreamFailures.inc({ provider: providerLabel, reason: kind });
  deps.log.warn({ provider: provider.record.id, reason: kind }, 'upstream transport failure; trying the next provider');
  const message =
    kind === 'timeout'
      ? 'The upstream provider timed out. Retry later.'
      : kind === 'connect'
        ? 'The upstream provider could not be reached. Retry later.'
        : 'The connection to the upstream provider failed. Retry later.';
  return { kind: 'retry', error: upstreamUnavailable(message, kind === 'timeout' ? 504 : 502, `upstream_${kind}`) };
}
