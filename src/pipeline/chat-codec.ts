import type { ChatCall, ChatCodec, DecodedResponse, OperationCodec, TargetInfo, UpstreamRequest } from '../core/contracts/vendor-codec.ts';
import type { IrCompletion } from '../core/ir/chat.ts';
import type { ChatOutput } from '../core/ir/output.ts';
import { IrStreamRelay } from './ir-stream-relay.ts';
import type { OperationBridge } from './types.ts';

/**
 * The codec the pipeline runs for a chat request: a vendor family's chat codec composed with the
 * client's dialect. When the client reads the wire the family declares as its own and the family
 * offers a pass-through, its answer goes through as the vendor's bytes (the fast path); otherwise
 * it is decoded to the IR and encoded by the dialect's output. The vendor never learns which.
 */
export function chatOperationCodec(chat: ChatCodec, output: ChatOutput): OperationCodec<ChatCall> {
  let byCodec = composed.get(output);
  if (!byCodec) composed.set(output, (byCodec = new WeakMap()));
  let codec = byCodec.get(chat);
  if (!codec) byCodec.set(chat, (codec = compose(chat, output)));
  return codec;
}

/** Serves chat requests whose client reads `output`: see chatOperationCodec. */
export function chatThrough(output: ChatOutput): OperationBridge<ChatCall> {
  let bridge = bridges.get(output);
  if (!bridge) {
    // the family's chat codec is never run as it is: it has no client's bytes to give
    bridge = { via: 'chat', codecFor: (viaCodec) => chatOperationCodec(viaCodec as unknown as ChatCodec, output) };
    bridges.set(output, bridge);
  }
  return bridge;
}

/** composed codecs, per client output (a few, module-level) and per family codec */
const composed = new WeakMap<ChatOutput, WeakMap<ChatCodec, OperationCodec<ChatCall>>>();
const bridges = new WeakMap<ChatOutput, OperationBridge<ChatCall>>();

function compose(chat: ChatCodec, output: ChatOutput): OperationCodec<ChatCall> {
  const passthrough = chat.passthroughs?.find((p) => p.wire === output.wire);
  const prepare = (call: ChatCall, target: TargetInfo) => withDialectWarnings(call, chat.prepare(call, target));
  const mapError = chat.mapError;
  if (passthrough && !passthrough.prepare) {
    return { prepare, decode: (call, target, body) => passthrough.decode(call, target, body), relay: (call, target) => passthrough.relay(call, target), mapError };
  }
  const translated = {
    decode(call: ChatCall, target: TargetInfo, body: Uint8Array): DecodedResponse {
      const { completion, usage } = chat.decode(call, target, body);
      return { body: output.encodeCompletion(completion), contentType: output.contentType, usage, outputText: outputText(completion) };
    },
    relay: (call: ChatCall, target: TargetInfo) => new IrStreamRelay(chat.streamDecoder(call, target), output.streamEncoder()),
  };
  if (!passthrough?.prepare) return { prepare, ...translated, mapError };
  // a pass-through that sends the client's own request: taken per call, when the call carries it and the provider serves the wire
  const own = passthrough.prepare;
  const serves = passthrough.serves;
  const native = (call: ChatCall, target: TargetInfo): call is ChatCall & { native: NonNullable<ChatCall['native']> } =>
    call.native?.wire === passthrough.wire && (serves === undefined || serves(target));
  return {
    prepare: (call, target) => (native(call, target) ? own(call, target) : prepare(call, target)),
    decode: (call, target, body) => (native(call, target) ? passthrough.decode(call, target, body) : translated.decode(call, target, body)),
    relay: (call, target) => (native(call, target) ? passthrough.relay(call, target) : translated.relay(call, target)),
    mapError,
  };
}

/** The settings the client's dialect dropped on its way to the IR, reported ahead of the family's own. */
function withDialectWarnings(call: ChatCall, request: UpstreamRequest): UpstreamRequest {
  if (!call.warnings?.length) return request;
  return { ...request, warnings: [...call.warnings, ...(request.warnings ?? [])] };
}

/** What the model wrote (reasoning, answer, refusal, tool calls: output tokens all), counted locally when the vendor reports no usage. */
function outputText(completion: IrCompletion): string {
  return completion.choices
    .map((c) => (c.message.reasoning ?? '') + (c.message.content ?? '') + (c.message.refusal ?? '') + (c.message.tool_calls ?? []).map((t) => t.function.name + t.function.arguments).join(''))
    .join('');
}
