import { notFound } from '../core/errors.ts';
import { authHeaders } from '../pipeline/auth-headers.ts';
import type { ChatCall, EmbeddingsCall, OperationCodec, TargetInfo } from '../core/contracts/vendor-codec.ts';
import { openaiChatOutput } from '../dialects/openai/chat-output.ts';
import { chatOperationCodec } from '../pipeline/chat-codec.ts';
import { sendProbe } from '../health/probe.ts';
import type { UpstreamClient } from '../pipeline/upstream-client.ts';
import type { AdminDeps } from './deps.ts';

const TIMEOUT_MS = 20_000;

/** The provider's runtime (key, adapter, pool), the catalogue's model kinds, and the upstream client the health probes use. */
export type ProviderTestDeps = Pick<AdminDeps, 'router' | 'catalogue'> & { upstream: UpstreamClient };

export interface ProviderTestResult {
  ok: boolean;
  model: string | null;
  status: number | null;
  latency_ms: number;
  message: string;
}

/**
 * One small request straight to the provider (chat with max_tokens 1, or one embedding),
 * outside routing and billing: it tells the operator whether base URL, key and model work. Sent
 * as the scheduled health probes are (sendProbe), which ask only for the models list.
 */
export async function testProvider(deps: ProviderTestDeps, providerId: string): Promise<ProviderTestResult> {
  const runtime = deps.router.get(providerId);
  if (!runtime) throw notFound(`No provider with id "${providerId}".`, 'id');
  const { record, adapter } = runtime;
  const kindOf = (m: string) => deps.catalogue.get(m).kind;
  const chatModel = adapter.operations.chat ? record.models.find((m) => kindOf(m) === 'chat' || kindOf(m) === null) : undefined;
  const embeddingModel = adapter.operations.embeddings ? record.models.find((m) => kindOf(m) === 'embedding') : undefined;
  const model = chatModel ?? embeddingModel;
  if (!model) return { ok: false, model: null, status: null, latency_ms: 0, message: 'This provider lists no chat or embedding model to test with.' };

  const target: TargetInfo = { providerId: record.id, upstreamModel: record.modelMap[model] ?? model, publicModel: model };
  let prepared;
  let codec: OperationCodec<ChatCall> | OperationCodec<EmbeddingsCall>;
  let call: ChatCall | EmbeddingsCall;
  if (chatModel) {
    // read as the chat endpoint reads it for an OpenAI-dialect client
    codec = chatOperationCodec(adapter.operations.chat!, openaiChatOutput(false));
    call = {
      body: { model, messages: [{ role: 'user', content: 'ping' }], max_tokens: 1 },
      stream: false,
      clientWantsUsage: false,
      maxOutputTokens: 1,
      created: Math.floor(Date.now() / 1000),
    };
    prepared = (codec as OperationCodec<ChatCall>).prepare(call as ChatCall, target);
  } else {
    codec = adapter.operations.embeddings!;
    call = { body: { model, input: 'ping' }, encodingFormat: 'float' };
    prepared = (codec as OperationCodec<EmbeddingsCall>).prepare(call as EmbeddingsCall, target);
  }

  const answer = await sendProbe(
    deps.upstream,
    runtime,
    {
      method: prepared.method ?? 'POST',
      path: prepared.path,
      headers: { 'content-type': 'application/json', ...authHeaders(adapter.manifest.auth, record.apiKey), ...prepared.headers },
      body: prepared.body,
    },
    TIMEOUT_MS,
  );
  const { status, latency_ms } = answer;
  if (status === null) return { ok: false, model, status, latency_ms, message: answer.error ?? 'No answer.' };
  if (status >= 400) return { ok: false, model, status, latency_ms, message: codec.mapError(status, answer.body, answer.headers).error.message };
  try {
    (codec as OperationCodec<unknown>).decode(call, target, answer.body);
    return { ok: true, model, status, latency_ms, message: `${model} answered.` };
  } catch (error) {
    return { ok: false, model, status, latency_ms, message: error instanceof Error ? error.message : String(error) };
  }
}
