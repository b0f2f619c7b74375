import type { GatewayError } from '../../core/errors.ts';
import type { IrUsage } from '../../core/ir/chat.ts';
import type { IrStreamFrame, IrStreamPart } from '../../core/ir/stream.ts';
import type { IrStreamDecoder, TargetInfo } from '../../core/contracts/vendor-codec.ts';
import { asNumber, asObject, asString, parseJson, type JsonObject } from '../_kit/read.ts';
import type { SseEvent } from '../../core/sse.ts';
import { inBandError } from './errors.ts';
import { mapStopReason } from './map-finish-reason.ts';
import { mergeUsage, usageToIr } from './map-usage.ts';
import { packThinking, type ThinkingBlock } from './thinking-state.ts';

/**
 * Anthropic stream events → IR parts, at most one frame per event (protocols.md §4.3). Tool
 * calls are numbered by their own counter, not the vendor's block index; thinking blocks are
 * gathered and packed into the next tool call's id, their text also read out as it arrives
 * (reasoning deltas); usage is merged from `message_start` and every `message_delta`.
 */
export class AnthropicStreamDecoder implements IrStreamDecoder {
  private readonly target: TargetInfo;
  private readonly created: number;
  private id = 'msg_gateway';
  private usage: JsonObject | undefined;
  private done = false;
  /** the id the last `start` part named */
  private told: string | undefined;
  /** vendor block index → tool-call index */
  private readonly toolIndex = new Map<number, number>();
  private thinking: ThinkingBlock[] = [];
  /** the thinking block being streamed, by vendor block index */
  private readonly openThinking = new Map<number, ThinkingBlock>();
  failed: GatewayError | undefined;

  constructor(target: TargetInfo, created: number) {
    this.target = target;
    this.created = created;
  }

  onEvent(event: SseEvent): IrStreamFrame[] {
    if (this.done || this.failed) return [];
    const type = event.event;
    if (type === 'ping' || type === undefined) return [];
    const json = asObject(parseJson(event.data));
    if (!json) return [];
    switch (type) {
      case 'message_start': {
        const message = asObject(json.message) ?? {};
        this.id = asString(message.id) ?? this.id;
        this.usage = mergeUsage(this.usage, message.usage);
        return this.frame({ type: 'role', choice: 0, role: 'assistant' }, { type: 'text-delta', choice: 0, text: '' });
      }
      case 'content_block_start':
        return this.blockStart(asNumber(json.index) ?? 0, asObject(json.content_block) ?? {});
      case 'content_block_delta':
        return this.blockDelta(asNumber(json.index) ?? 0, asObject(json.delta) ?? {});
      case 'content_block_stop': {
        const index = asNumber(json.index) ?? 0;
        const block = this.openThinking.get(index);
        if (block) {
          this.thinking.push(block);
          this.openThinking.delete(index);
        }
        return [];
      }
      case 'message_delta': {
        this.usage = mergeUsage(this.usage, json.usage);
        const delta = asObject(json.delta) ?? {};
        const raw = asString(delta.stop_reason) ?? null;
        if (raw === null) return [];
        return this.frame({ type: 'finish', choice: 0, reason: mapStopReason(raw), raw, stopSequence: asString(delta.stop_sequence) ?? null });
      }
      case 'message_stop':
        this.done = true;
        return [];
      case 'error':
        this.failed = inBandError(json);
        return [];
      default:
        // new event types may appear: ignore them
        return [];
    }
  }

  end(): { complete: boolean; usage: IrUsage | null } {
    return { complete: this.done, usage: usageToIr(this.usage) };
  }

  /** from message_start on: the prompt's tokens, and the output as the message_deltas counted it */
  usageSoFar(): IrUsage | null {
    return usageToIr(this.usage);
  }

  private blockStart(index: number, block: JsonObject): IrStreamFrame[] {
    switch (block.type) {
      case 'text': {
        const text = asString(block.text) ?? '';
        return text === '' ? [] : this.frame({ type: 'text-delta', choice: 0, text });
      }
      case 'tool_use': {
        const position = this.toolIndex.size;
        this.toolIndex.set(index, position);
        const id = packThinking(asString(block.id) ?? '', this.thinking);
        this.thinking = [];
        const name = asString(block.name) ?? '';
        return this.frame({ type: 'tool-call-start', choice: 0, index: position, id, name }, { type: 'tool-call-delta', choice: 0, index: position, argumentsDelta: '' });
      }
      case 'thinking': {
        const text = asString(block.thinking) ?? '';
        this.openThinking.set(index, { type: 'thinking', thinking: text, signature: asString(block.signature) ?? '' });
        return text === '' ? [] : this.frame({ type: 'reasoning-delta', choice: 0, text });
      }
      case 'redacted_thinking':
        this.openThinking.set(index, { type: 'redacted_thinking', data: asString(block.data) ?? '' });
        return [];
      default:
        return [];
    }
  }

  private blockDelta(index: number, delta: JsonObject): IrStreamFrame[] {
    switch (delta.type) {
      case 'text_delta': {
        const text = asString(delta.text) ?? '';
        return text === '' ? [] : this.frame({ type: 'text-delta', choice: 0, text });
      }
      case 'input_json_delta': {
        const position = this.toolIndex.get(index);
        const piece = asString(delta.partial_json) ?? '';
        if (position === undefined || piece === '') return [];
        return this.frame({ type: 'tool-call-delta', choice: 0, index: position, argumentsDelta: piece });
      }
      case 'thinking_delta': {
        const block = this.openThinking.get(index);
        const text = asString(delta.thinking) ?? '';
        if (block?.type !== 'thinking' || text === '') return [];
        block.thinking += text;
        return this.frame({ type: 'reasoning-delta', choice: 0, text });
      }
      case 'signature_delta': {
        const block = this.openThinking.get(index);
        if (block?.type === 'thinking') block.signature = asString(delta.signature) ?? '';
        return [];
      }
      default:
        return [];
    }
  }

  /** one frame; the first (and any after the id changed) opens with the answer's metadata */
  private frame(...parts: IrStreamPart[]): IrStreamFrame[] {
    if (this.told === this.id) return [parts];
    this.told = this.id;
    return [[{ type: 'start', id: this.id, created: this.created, model: this.target.publicModel }, ...parts]];
  }
}
