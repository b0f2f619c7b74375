import type { Pricing } from '../core/pricing.ts';
import { costOfUnits, type Nano } from '../core/money.ts';
import { countTextTokens, IMAGE_ALLOWANCE } from '../core/tokens/token-counter.ts';
import { isObject, type Json } from './translate/shapes.ts';

/**
 * Audio input is about 10 tokens per second of speech (the vendor's published accounting for
 * its realtime models); the byte rate depends on the input format.
 */
const AUDIO_TOKENS_PER_SECOND = 10;
const BYTES_PER_SECOND: Record<string, number> = { pcm16: 48_000, 'audio/pcm': 48_000, g711_ulaw: 8_000, g711_alaw: 8_000, 'audio/pcmu': 8_000, 'audio/pcma': 8_000 };
/** per item: role and framing tokens */
const ITEM_OVERHEAD = 4;
/** text tokens: the project's counter, which bounds a large text by its byte length instead of tokenising it */
const textTokens = countTextTokens;

/** input tokens by price: text, and audio (priced at the dearer of the two input rates) */
export interface InputTokens {
  text: number;
  audio: number;
}

/**
 * An estimate of what the session's next response may cost, reserved before it runs: the
 * conversation so far (each response bills its whole context as input) plus what was added since,
 * text at the text input price and audio at the dearer input price, plus the output token limit
 * at the dearer output price the session's modalities allow. The session tops its hold up to this
 * estimate before it forwards an item or a `response.create`; what may still exceed it is the
 * audio appended since the hold was last sized (about 10 tokens a second).
 */
export class ResponseEstimator {
  private readonly context: InputTokens = { text: 0, audio: 0 };
  private readonly pending: InputTokens = { text: 0, audio: 0 };
  private instructionTokens = 0;
  private maxOutputTokens: number;
  private audioOutput = true;
  private bytesPerSecond = 48_000;
  private readonly defaultMaxOutputTokens: number;

  constructor(defaultMaxOutputTokens: number) {
    this.defaultMaxOutputTokens = defaultMaxOutputTokens;
    this.maxOutputTokens = defaultMaxOutputTokens;
  }

  /** base64 characters of appended input audio */
  noteAudio(base64Chars: number): void {
    this.pending.audio += this.audioTokens(base64Chars);
  }

  /** a conversation item the client created, counted with `itemTokens` */
  noteItem(tokens: InputTokens): void {
    this.pending.text += tokens.text;
    this.pending.audio += tokens.audio;
  }

  /** what an item adds to the context (an item reference adds nothing: it is in the context already) */
  itemTokens(item: unknown): InputTokens {
    const tokens = { text: 0, audio: 0 };
    if (!isObject(item) || item.type === 'item_reference') return tokens;
    tokens.text += ITEM_OVERHEAD;
    const parts = Array.isArray(item.content) ? item.content : [];
    for (const part of parts) {
      if (!isObject(part)) continue;
      if (typeof part.text === 'string') tokens.text += textTokens(part.text);
      if (typeof part.audio === 'string') tokens.audio += this.audioTokens(part.audio.length);
      if (typeof part.image_url === 'string') tokens.text += IMAGE_ALLOWANCE;
    }
    if (typeof item.output === 'string') tokens.text += textTokens(item.output);
    if (typeof item.arguments === 'string') tokens.text += textTokens(item.arguments);
    return tokens;
  }

  /** session settings of either generation (session.created / session.updated) */
  noteSession(session: Json): void {
    const audio = isObject(session.audio) ? session.audio : {};
    const input = isObject(audio.input) ? audio.input : {};
    const max = session.max_output_tokens ?? session.max_response_output_tokens;
    if (max !== undefined) this.maxOutputTokens = this.outputCap(max);
    const audioOutput = audioOutputOf(session.output_modalities ?? session.modalities);
    if (audioOutput !== undefined) this.audioOutput = audioOutput;
    const format = isObject(input.format) ? input.format.type : session.input_audio_format;
    if (typeof format === 'string') this.bytesPerSecond = BYTES_PER_SECOND[format] ?? this.bytesPerSecond;
    if (typeof session.instructions === 'string') this.instructionTokens = textTokens(session.instructions);
  }

  /**
   * A response finished: its context and output are the next response's context. `audioTokens`
   * of them were audio (input and output); unknown, all are counted as audio, the dearer.
   */
  noteResponseDone(inputTokens: number, outputTokens: number, outOfBand = false, audioTokens = inputTokens + outputTokens): void {
    // an out-of-band response leaves the conversation as it was
    if (outOfBand) return;
    const total = inputTokens + outputTokens;
    if (total >= this.context.text + this.context.audio) {
      this.context.audio = Math.min(audioTokens, total);
      this.context.text = total - this.context.audio;
    }
    this.pending.text = 0;
    this.pending.audio = 0;
  }

  /** the amount to reserve for the next response, with `extra` input beside what was noted so far */
  nextResponse(pricing: Pricing, extra: InputTokens = { text: 0, audio: 0 }): Nano {
    const input = {
      text: this.context.text + this.pending.text + this.instructionTokens + extra.text,
      audio: this.context.audio + this.pending.audio + extra.audio,
    };
    return this.cost(pricing, input, this.maxOutputTokens, this.audioOutput);
  }

  /**
   * The amount a `response.create` may cost with its own parameters (either generation): its
   * `input` items (out-of-band input; with them, or with `conversation: "none"`, the conversation
   * is not read unless an item references it), instructions, output cap and modalities.
   */
  forResponse(pricing: Pricing, response: Json | undefined): Nano {
    if (!response) return this.nextResponse(pricing);
    const items = Array.isArray(response.input) ? response.input : undefined;
    const ownContext = items !== undefined || response.conversation === 'none';
    const referencesConversation = items?.some((item) => isObject(item) && item.type === 'item_reference') ?? false;
    const input: InputTokens =
      ownContext && !referencesConversation
        ? { text: this.instructionTokens, audio: 0 }
        : { text: this.context.text + this.pending.text + this.instructionTokens, audio: this.context.audio + this.pending.audio };
    for (const item of items ?? []) {
      const tokens = this.itemTokens(item);
      input.text += tokens.text;
      input.audio += tokens.audio;
    }
    if (typeof response.instructions === 'string') input.text += textTokens(response.instructions);
    const max = response.max_output_tokens ?? response.max_response_output_tokens;
    const maxOutput = max === undefined ? this.maxOutputTokens : this.outputCap(max);
    return this.cost(pricing, input, maxOutput, audioOutputOf(response.output_modalities ?? response.modalities) ?? this.audioOutput);
  }

  /** `response.conversation: "none"`: the response does not join the conversation */
  static isOutOfBand(response: Json | undefined): boolean {
    return response?.conversation === 'none';
  }

  private cost(pricing: Pricing, input: InputTokens, outputTokens: number, audioOutput: boolean): Nano {
    const audioInputRate = Math.max(pricing.inputPerMtok, pricing.audioInputPerMtok ?? 0);
    const outputRate = audioOutput ? Math.max(pricing.outputPerMtok, pricing.audioOutputPerMtok ?? 0) : pricing.outputPerMtok;
    return (
      costOfUnits([
        [input.text, pricing.inputPerMtok],
        [input.audio, audioInputRate],
        [outputTokens, outputRate],
      ]) + pricing.perRequest
    );
  }

  /** a response's output limit: a positive number up to the default; "inf" and the like mean the default */
  private outputCap(max: unknown): number {
    return typeof max === 'number' && max > 0 ? Math.min(max, this.defaultMaxOutputTokens) : this.defaultMaxOutputTokens;
  }

  private audioTokens(base64Chars: number): number {
    const bytes = (base64Chars * 3) / 4;
    return Math.ceil((bytes / this.bytesPerSecond) * AUDIO_TOKENS_PER_SECOND);
  }
}

function audioOutputOf(modalities: unknown): boolean | undefined {
  return Array.isArray(modalities) ? modalities.includes('audio') : undefined;
}
