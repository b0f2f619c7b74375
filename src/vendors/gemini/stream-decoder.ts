import type { GatewayError } from '../../core/errors.ts';
import type { IrUsage } from '../../core/ir/chat.ts';
import type { IrStreamFrame, IrStreamPart } from '../../core/ir/stream.ts';
import type { IrStreamDecoder, TargetInfo } from '../../core/contracts/vendor-codec.ts';
import { asArray, asNumber, asObject, asString, parseJson, type JsonObject } from '../_kit/read.ts';
import type { SseEvent } from '../../core/sse.ts';
import { readParts } from './convert-response.ts';
import { inBandError } from './errors.ts';
import { mapFinishReason } from './map-finish-reason.ts';
import { usageToIr } from './map-usage.ts';

interface CandidateState {
  calls: number;
  finished: boolean;
}

/**
 * Gemini `?alt=sse` events → IR parts (protocols.md §5.3, §5.8). Each event is a whole
 * GenerateContentResponse with the new parts: thought text → a reasoning delta, text → a text
 * delta, each function call (always whole) → its start and all its arguments, each drawn image
 * (always whole) → an image part, `finishReason` → the finish part; each in a frame of its own.
 * There is no terminator: the stream is complete when every candidate has finished.
 * `usageMetadata` is a running total: the last one wins.
 */
export class GeminiStreamDecoder implements IrStreamDecoder {
  private readonly target: TargetInfo;
  private readonly created: number;
  private id: string | undefined;
  private usage: IrUsage | null = null;
  private readonly candidates = new Map<number, CandidateState>();
  private blocked = false;
  private started = false;
  failed: GatewayError | undefined;

  constructor(target: TargetInfo, created: number) {
    this.target = target;
    this.created = created;
  }

  onEvent(event: SseEvent): IrStreamFrame[] {
    if (this.failed || this.blocked) return [];
    const json = asObject(parseJson(event.data));
    if (!json) return [];
    if (json.error !== undefined) {
      this.failed = inBandError(json);
      return [];
    }
    const id = (this.id ??= asString(json.responseId) ?? `gen-${this.created}`);
    this.usage = usageToIr(json.usageMetadata) ?? this.usage;
    const frames: IrStreamPart[][] = [];
    const list = asArray(json.candidates);
    list.forEach((raw, position) => this.candidate(asObject(raw) ?? {}, position, frames));
    const blockReason = asString(asObject(json.promptFeedback)?.blockReason);
    if (list.length === 0 && blockReason !== undefined) {
      this.blocked = true;
      frames.push([{ type: 'role', choice: 0, role: 'assistant' }, { type: 'text-delta', choice: 0, text: '' }]);
      frames.push([{ type: 'finish', choice: 0, reason: 'content_filter', raw: blockReason }]);
    }
    if (frames.length > 0 && !this.started) {
      this.started = true;
      frames[0]!.unshift({ type: 'start', id, created: this.created, model: this.target.publicModel });
    }
    return frames;
  }

  end(): { complete: boolean; usage: IrUsage | null } {
    const states = [...this.candidates.values()];
    const complete = this.blocked || (states.length > 0 && states.every((s) => s.finished));
    return { complete, usage: this.usage };
  }

  usageSoFar(): IrUsage | null {
    return this.usage;
  }

  private candidate(candidate: JsonObject, position: number, out: IrStreamPart[][]): void {
    const choice = asNumber(candidate.index) ?? position;
    let state = this.candidates.get(choice);
    if (!state) {
      state = { calls: 0, finished: false };
      this.candidates.set(choice, state);
      out.push([{ type: 'role', choice, role: 'assistant' }, { type: 'text-delta', choice, text: '' }]);
    }
    if (state.finished) return;
    const { text, reasoning, calls, images } = readParts(candidate.content, `${this.id}|${choice}`, state.calls);
    // the vendor sends its thoughts before the answer: in one event too, they come first
    if (reasoning !== '') out.push([{ type: 'reasoning-delta', choice, text: reasoning }]);
    if (text !== '') out.push([{ type: 'text-delta', choice, text }]);
    for (const call of calls) {
      const index = state.calls++;
      out.push([
        { type: 'tool-call-start', choice, index, id: call.id, name: call.function.name },
        { type: 'tool-call-delta', choice, index, argumentsDelta: call.function.arguments },
      ]);
    }
    for (const image of images) out.push([{ type: 'image', choice, image }]);
    const finish = asString(candidate.finishReason);
    if (finish !== undefined) {
      state.finished = true;
      out.push([{ type: 'finish', choice, reason: mapFinishReason(finish, state.calls > 0), raw: finish }]);
    }
  }
}
