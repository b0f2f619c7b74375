import { usageRow } from '../billing/usage-row.ts';
import { nanoToUsd } from '../core/money.ts';
import type { Usage } from '../core/usage.ts';
import type { NewUsageRow } from '../store/schema.ts';
import type { RealtimeRecordDeps } from './deps.ts';
import type { SessionIdentity } from './types.ts';

export const REALTIME_ENDPOINT = '/v1/realtime';

/** HTTP-like status of a realtime response for the usage log */
function statusOf(responseStatus: string): number {
  switch (responseStatus) {
    case 'cancelled':
      return 499;
    case 'failed':
      return 502;
    default:
      return 200;
  }
}

/** A settled response's usage row (one per response, with the session id), as of `now`. */
export function realtimeUsageRow(session: SessionIdentity, response: { id: string; status: string; startedAt: number }, usage: Usage | null, costNano: number, now: number): NewUsageRow {
  return usageRow(
    {
      // the handshake's request id and the response's id
      requestId: realtimeRequestId(session.requestId, response.id),
      accountId: session.principal.accountId,
      keyId: session.principal.key.id,
      model: session.model,
      endpoint: REALTIME_ENDPOINT,
      providerId: session.providerId,
      status: statusOf(response.status),
      usage,
      costNano,
      startedAt: response.startedAt,
      estimated: false,
      error: response.status === 'failed' ? 'server_error' : null,
      sessionId: session.sessionId,
    },
    now,
  );
}

/** After a response was settled: its usage row (written behind), one log line, the metrics. */
export function recordRealtimeResponse(deps: RealtimeRecordDeps, session: SessionIdentity, response: { id: string; status: string }, usage: Usage | null, row: NewUsageRow): void {
  const key = session.principal.key;
  const costNano = row.cost_nano;
  deps.sync.recordUsage(row);
  deps.sync.touchKey(key.id, row.created_at);

  const costUsd = nanoToUsd(costNano);
  deps.log.info(
    {
      reqId: session.requestId,
      sessionId: session.sessionId,
      responseId: response.id,
      responseStatus: response.status,
      keyId: key.id,
      accountId: session.principal.accountId,
      endpoint: REALTIME_ENDPOINT,
      model: session.model,
      provider: session.providerId,
      inputTokens: usage?.inputTokens ?? 0,
      audioInputTokens: usage?.audioInputTokens ?? 0,
      cachedTokens: usage?.cachedInputTokens ?? 0,
      outputTokens: usage?.outputTokens ?? 0,
      audioOutputTokens: usage?.audioOutputTokens ?? 0,
      costUsd,
    },
    'realtime response',
  );

  const m = deps.metrics;
  m.requests.inc({ endpoint: REALTIME_ENDPOINT, status: String(row.status) });
  if (usage) {
    m.tokens.inc({ model: session.model, direction: 'input' }, usage.inputTokens);
    m.tokens.inc({ model: session.model, direction: 'output' }, usage.outputTokens);
    if (costNano > 0) m.cost.inc({ model: session.model }, costUsd);
  }
}

/** A realtime response's request id in the journal and the usage rows: `<handshake request id>:<response id>`. */
export function realtimeRequestId(handshakeRequestId: string, responseId: string): string {
  return `${handshakeRequestId}:${responseId}`;
}
