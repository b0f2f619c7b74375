import { nanoToUsd } from '../core/money.ts';
import type { Usage } from '../core/usage.ts';
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

/** After a response was settled: one usage row (written behind, with the session id), one log line, the metrics. */
export function recordRealtimeResponse(
  deps: RealtimeRecordDeps,
  session: SessionIdentity,
  response: { id: string; status: string; startedAt: number },
  usage: Usage | null,
  costNano: number,
): void {
  const now = Date.now();
  const key = session.principal.key;
  const status = statusOf(response.status);
  const errorType = response.status === 'failed' ? 'server_error' : null;
  deps.sync.recordUsage({
    // one row per response: the handshake's request id and the response's id
    request_id: realtimeRequestId(session.requestId, response.id),
    created_at: now,
    account_id: session.principal.accountId,
    key_id: key.id,
    model: session.model,
    endpoint: REALTIME_ENDPOINT,
    provider_id: session.providerId,
    status,
    prompt_tokens: usage?.inputTokens ?? 0,
    completion_tokens: usage?.outputTokens ?? 0,
    cached_tokens: usage?.cachedInputTokens ?? 0,
    units: 0,
    cost_nano: costNano,
    latency_ms: now - response.startedAt,
    estimated: 0,
    error_type: errorType,
    session_id: session.sessionId,
  });
  deps.sync.touchKey(key.id, now);

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
  m.requests.inc({ endpoint: REALTIME_ENDPOINT, status: String(status) });
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
