import type { GatewayError } from '../../core/errors.ts';
import type { IrChunk, IrChunkChoice, IrUsage } from '../../core/ir/chat.ts';
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
 * Gemini `?alt=sse` events → IR chunks (protocols.md §5.3, §5.8). Each event is a whole
 * GenerateContentResponse with the new parts: text → content deltas, each function call (always
 * whole) → one tool-call delta with its arguments, each drawn image (always whole) → one
 * `images` delta, `finishReason` → the finish chunk.
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
  failed: GatewayError | undefined;

  constructor(target: TargetInfo, created: number) {
    this.target = target;
    this.created = created;
  }

  onEvent(event: SseEvent): IrChunk[] {
    if (this.failed || this.blocked) return [];
    const json = asObject(parseJson(event.data));
    if (!json) return [];
    if (json.error !== undefined) {
      this.failed = inBandError(json);
      return [];
    }
    this.id ??= asString(json.responseId) ?? `gen-${this.created}`;
    this.usage = usageToIr(json.usageMetadata) ?? this.usage;
    const choices: IrChunkChoice[] = [];
    const list = asArray(json.candidates);
    list.forEach((raw, position) => this.candidate(asObject(raw) ?? {}, position, choices));
    const blockReason = asString(asObject(json.promptFeedback)?.blockReason);
    if (list.length === 0 && blockReason !== undefined) {
      this.blocked = true;
      choices.push({ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null });
      choices.push({ index: 0, delta: {}, finish_reason: 'content_filter', raw_finish_reason: blockReason });
    }
    return choices.map((choice) => ({ id: this.id!, created: this.created, model: this.target.publicModel, choices: [choice] }));
  }

  end(): { complete: boolean; usage: IrUsage | null } {
    const states = [...this.candidates.values()];
    const complete = this.blocked || (states.length > 0 && states.every((s) => s.finished));
    return { complete, usage: this.usage };
  }

  private candidate(candidate: JsonObject, position: number, out: IrChunkChoice[]): void {
    const index = asNumber(candidate.index) ?? position;
    let state = this.candidates.get(index);
    if (!state) {
      state = { calls: 0, finished: false };
      this.candidates.set(index, state);
      out.push({ index, delta: { role: 'assistant', content: '' }, finish_reason: null });
    }
    if (state.finished) return;
    const { text, calls, images } = readParts(candidate.content, `${this.id}|${index}`, state.calls);
    if (text !== '') out.push({ index, delta: { content: text }, finish_reason: null });
    for (const call of calls) {
      out.push({ index, delta: { tool_calls: [{ index: state.calls++, id: call.id, type: 'function', function: call.function }] }, finish_reason: null });
    }
    for (const image of images) out.push({ index, delta: { images: [image] }, finish_reason: null });
    const finish = asString(candidate.finishReason);
    if (finish !== undefined) {
      state.finished = true;
      out.push({ index, delta: {}, finish_reason: mapFinishReason(finish, state.calls > 0), raw_finish_reason: finish });
    }
  }
}
