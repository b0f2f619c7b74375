import { notFound } from '../../core/errors.ts';
import type { Gateway } from '../../gateway.ts';
import { authHeaders } from '../../pipeline/auth-headers.ts';
import type { ChatCall, EmbeddingsCall, OperationCodec, TargetInfo } from '../../pipeline/codec.ts';
import { openaiChatOutput } from '../../dialects/openai/chat-output.ts';

const TIMEOUT_MS = 20_000;

export interface ProviderTestResult {
  ok: boolean;
  model: string | null;
  status: number | null;
  latency_ms: number;
  message: string;
}

/**
 * One small request straight to the provider (chat with max_tokens 1, or one embedding),
 * outside routing and billing: it tells the operator whether base URL, key and model work.
 */
export async function testProvider(gateway: Gateway, providerId: string): Promise<ProviderTestResult> {
  const runtime = gateway.router.get(providerId);
  if (!runtime) throw notFound(`No provider with id "${providerId}".`, 'id');
  const { record, adapter } = runtime;
  const kindOf = (m: string) => gateway.catalogue.get(m).kind;
  const chatModel = adapter.operations.chat ? record.models.find((m) => kindOf(m) === 'chat' || kindOf(m) === null) : undefined;
  const embeddingModel = adapter.operations.embeddings ? record.models.find((m) => kindOf(m) === 'embedding') : undefined;
  const model = chatModel ?? embeddingModel;
  if (!model) return { ok: false, model: null, status: null, latency_ms: 0, message: 'This provider lists no chat or embedding model to test with.' };

  const target: TargetInfo = { providerId: record.id, upstreamModel: record.modelMap[model] ?? model, publicModel: model };
  let prepared;
  let codec: OperationCodec<ChatCall> | OperationCodec<EmbeddingsCall>;
  let call: ChatCall | EmbeddingsCall;
  if (chatModel) {
    codec = adapter.operations.chat!;
    call = {
      body: { model, messages: [{ role: 'user', content: 'ping' }], max_tokens: 1 },
      stream: false,
      clientWantsUsage: false,
      output: openaiChatOutput(false),
      maxOutputTokens: 1,
      created: Math.floor(Date.now() / 1000),
    };
    prepared = (codec as OperationCodec<ChatCall>).prepare(call as ChatCall, target);
  } else {
    codec = adapter.operations.embeddings!;
    call = { body: { model, input: 'ping' }, encodingFormat: 'float' };
    prepared = (codec as OperationCodec<EmbeddingsCall>).prepare(call as EmbeddingsCall, target);
  }

  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  try {
    const response = await gateway.upstream.send(runtime.upstream, {
      method: prepared.method ?? 'POST',
      path: prepared.path,
      headers: { 'content-type': 'application/json', ...authHeaders(adapter.manifest.auth, record.apiKey), ...prepared.headers },
      body: prepared.body,
      signal: AbortSignal.timeout(TIMEOUT_MS),
    });
    const body = await response.body.readAll(1024 * 1024);
    if (response.status >= 400) {
      const failure = codec.mapError(response.status, body, response.headers);
      return { ok: false, model, status: response.status, latency_ms: elapsed(), message: failure.error.message };
    }
    (codec as OperationCodec<unknown>).decode(call, target, body);
    return { ok: true, model, status: response.status, latency_ms: elapsed(), message: `${model} answered.` };
  } catch (error) {
    return { ok: false, model, status: null, latency_ms: elapsed(), message: error instanceof Error ? error.message : String(error) };
  }
}
