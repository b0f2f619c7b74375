import type { GatewayError } from '../../core/errors.ts';
import type { IrUsage } from '../../core/ir/chat.ts';
import type { IrStreamFrame, IrStreamPart } from '../../core/ir/stream.ts';
import type { IrStreamDecoder, TargetInfo } from '../../core/contracts/vendor-codec.ts';
import { asArray, asNumber, asObject, asString, parseJson, type JsonObject } from '../_kit/read.ts';
import type { SseEvent } from '../../core/sse.ts';
import { reasoningOf, usageToIr } from './convert-response.ts';
import { mapOpenAIFinishReason } from './map-finish-reason.ts';
import { inBandError } from './passthrough-relay.ts';

/**
 * OpenAI chat chunks → IR parts, one frame per chunk that has choices; the usage chunk and
 * `[DONE]` are read on the side. A `start` part opens the first frame and any frame whose chunk
 * names another id or time.
 */
export class OpenAIStreamDecoder implements IrStreamDecoder {
  private readonly target: TargetInfo;
  private readonly created: number;
  private usage: IrUsage | null = null;
  private done = false;
  private meta: { id: string; created: number } | undefined;
  failed: GatewayError | undefined;

  constructor(target: TargetInfo, created: number) {
    this.target = target;
    this.created = created;
  }

  onEvent(event: SseEvent): IrStreamFrame[] {
    if (this.done || this.failed) return [];
    if (event.data === '[DONE]') {
      this.done = true;
      return [];
    }
    const json = asObject(parseJson(event.data));
    if (!json) return [];
    if (json.error !== undefined) {
      this.failed = inBandError(event.data);
      return [];
    }
    this.usage = usageToIr(json.usage) ?? this.usage;
    const choices = asArray(json.choices);
    if (choices.length === 0) return [];
    const parts: IrStreamPart[] = [];
    const id = asString(json.id) ?? 'chatcmpl-gateway';
    const created = asNumber(json.created) ?? this.created;
    if (this.meta?.id !== id || this.meta.created !== created) {
      this.meta = { id, created };
      parts.push({ type: 'start', id, created, model: this.target.publicModel });
    }
    choices.forEach((raw, position) => choiceParts(asObject(raw) ?? {}, position, parts));
    return [parts];
  }

  end(): { complete: boolean; usage: IrUsage | null } {
    return { complete: this.done, usage: this.usage };
  }

  /** usually none before the last chunk (`stream_options.include_usage`); some servers report it on every chunk */
  usageSoFar(): IrUsage | null {
    return this.usage;
  }
}

/** One chunk choice → its parts, in the order its delta's fields are written back. */
function choiceParts(raw: JsonObject, position: number, out: IrStreamPart[]): void {
  const choice = asNumber(raw.index) ?? position;
  const delta = asObject(raw.delta) ?? {};
  if (delta.role === 'assistant') out.push({ type: 'role', choice, role: 'assistant' });
  // the servers that think aloud send it before the answer
  const reasoning = reasoningOf(delta);
  if (reasoning) out.push({ type: 'reasoning-delta', choice, text: reasoning });
  const content = asString(delta.content);
  if (content !== undefined) out.push({ type: 'text-delta', choice, text: content });
  const refusal = asString(delta.refusal);
  if (refusal !== undefined) out.push({ type: 'refusal-delta', choice, text: refusal });
  asArray(delta.tool_calls).forEach((item, i) => {
    const call = asObject(item);
    if (!call) return;
    const index = asNumber(call.index) ?? i;
    const fn = asObject(call.function);
    const id = asString(call.id);
    const name = asString(fn?.name);
    const args = asString(fn?.arguments);
    // a piece that names the call (or says nothing else) announces it
    if (id !== undefined || call.type === 'function' || name !== undefined || args === undefined) {
      out.push({ type: 'tool-call-start', choice, index, ...(id !== undefined && { id }), ...(name !== undefined && { name }) });
    }
    if (args !== undefined) out.push({ type: 'tool-call-delta', choice, index, argumentsDelta: args });
  });
  const finish = asString(raw.finish_reason);
  if (finish !== undefined) out.push({ type: 'finish', choice, reason: mapOpenAIFinishReason(finish), raw: finish });
}
