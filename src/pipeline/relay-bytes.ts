import { once } from 'node:events';
import type { ByteStream } from '../core/contracts/vendor-codec.ts';
import { priceOf } from '../core/pricing.ts';
import { costHeaders } from './answer-cost.ts';
import { settleBeforeAnswer } from './settle-call.ts';
import { transportFailure } from './relay-sse.ts';
import type { AttemptResult, AttemptScope, UpstreamBodyStream } from './types.ts';

/**
 * A binary answer (speech audio): bytes go to the client as they arrive, with the status and
 * Content-Type committed on the first chunk; a slow client pauses the upstream. A binary body
 * has no in-band error, so an upstream that breaks off after the first byte makes the gateway
 * cut the client's connection (a truncated answer, never one that looks complete) and charge
 * nothing. A client that leaves is charged: the vendor produced, and bills, the whole answer.
 */
export async function relayBytes<Call, Result>(scope: AttemptScope<Call, Result>, info: ByteStream, body: UpstreamBodyStream): Promise<AttemptResult> {
  const { ctx, reply, outcome, clientGone, deps, providerLabel } = scope;
  const res = reply.raw;
  let committed = false;
  const commit = () => {
    reply.hijack();
    // the cost is known from the request: priced as settleCall will charge it
    const cost = costHeaders({ costNano: priceOf(scope.holds.pricing, info.usage, scope.op.meter), estimated: false });
    res.writeHead(200, { ...ctx.responseHeaders, ...cost, 'content-type': info.contentType });
    committed = true;
  };

  try {
    for await (const chunk of body) {
      if (!committed) commit();
      if (!res.write(chunk)) await Promise.race([once(res, 'drain'), once(res, 'close')]);
      if (clientGone.aborted) break;
    }
  } catch (error) {
    if (!clientGone.aborted) {
      if (!committed) return transportFailure(scope, error);
      scope.health.report(false);
      deps.metrics.upstreamFailures.inc({ provider: providerLabel, reason: 'stream_interrupted' });
      outcome.status = 502;
      outcome.error = 'server_error';
      res.destroy();
      return { kind: 'done' };
    }
  } finally {
    body.destroy();
  }

  if (clientGone.aborted) {
    scope.health.cancelProbe();
    outcome.status = 499;
    outcome.usage = info.usage;
    return { kind: 'done' };
  }
  scope.health.report(true);
  if (!committed) commit();
  outcome.status = 200;
  outcome.usage = info.usage;
  const logged = settleBeforeAnswer(deps, ctx, scope.op, outcome, scope.holds);
  if (logged) await logged;
  res.end();
  return { kind: 'done' };
}
