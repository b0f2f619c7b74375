import type { Pricing } from '../catalogue/pricing.ts';
import { costOfUnits, type Nano } from '../core/money.ts';
import { isObject, type Json } from './translate/shapes.ts';

/**
 * Audio input is about 10 tokens per second of speech (the vendor's published accounting for
 * its realtime models); the byte rate depends on the input format.
 */
const AUDIO_TOKENS_PER_SECOND = 10;
const BYTES_PER_SECOND: Record<string, number> = { pcm16: 48_000, 'audio/pcm': 48_000, g711_ulaw: 8_000, g711_alaw: 8_000, 'audio/pcmu': 8_000, 'audio/pcma': 8_000 };
/** per item: role and framing tokens */
const ITEM_OVERHEAD = 4;

/**
 * Text tokens, bounded from above without running a tokenizer on the frame path: a token is at
 * least ~3 bytes of UTF-8 for Latin scripts and about one 3-byte character for CJK.
 */
const textTokens = (text: string): number => Math.ceil(Buffer.byteLength(text, 'utf8') / 3);

/**
 * An estimate of what the session's next response may cost, reserved before it runs: the
 * conversation so far (each response bills its whole context as input) plus what was added since,
 * at the dearer of the text and audio input prices, plus the output token limit at the dearer
 * output price the session's modalities allow. A response may cost more than its estimate (a
 * long monologue appended after the hold was taken); the overrun is charged all the same.
 */
export class ResponseEstimator {
  private contextTokens = 0;
  private pendingTokens = 0;
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
    const bytes = (base64Chars * 3) / 4;
    this.pendingTokens += Math.ceil((bytes / this.bytesPerSecond) * AUDIO_TOKENS_PER_SECOND);
  }

  /** a conversation item the client created */
  noteItem(item: unknown): void {
    if (!isObject(item)) return;
    this.pendingTokens += ITEM_OVERHEAD;
    const parts = Array.isArray(item.content) ? item.content : [];
    for (const part of parts) {
      if (!isObject(part)) continue;
      if (typeof part.text === 'string') this.pendingTokens += textTokens(part.text);
      if (typeof part.audio === 'string') this.noteAudio(part.audio.length);
      if (typeof part.image_url === 'string') this.pendingTokens += 1_105;
    }
    if (typeof item.output === 'string') this.pendingTokens += textTokens(item.output);
    if (typeof item.arguments === 'string') this.pendingTokens += textTokens(item.arguments);
  }

  /** session settings of either generation (session.created / session.updated) */
  noteSession(session: Json): void {
    const audio = isObject(session.audio) ? session.audio : {};
    const input = isObject(audio.input) ? audio.input : {};
    const max = session.max_output_tokens ?? session.max_response_output_tokens;
    if (max !== undefined) this.maxOutputTokens = typeof max === 'number' && max > 0 ? Math.min(max, this.defaultMaxOutputTokens) : this.defaultMaxOutputTokens;
    const modalities = session.output_modalities ?? session.modalities;
    if (Array.isArray(modalities)) this.audioOutput = modalities.includes('audio');
    const format = isObject(input.format) ? input.format.type : session.input_audio_format;
    if (typeof format === 'string') this.bytesPerSecond = BYTES_PER_SECOND[format] ?? this.bytesPerSecond;
    if (typeof session.instructions === 'string') this.pendingTokens += textTokens(session.instructions);
  }

  /** a response finished: its context and output are the next response's context */
  noteResponseDone(inputTokens: number, outputTokens: number): void {
    this.contextTokens = Math.max(this.contextTokens, inputTokens + outputTokens);
    this.pendingTokens = 0;
  }

  /** the amount to reserve for the next response */
  nextResponse(pricing: Pricing): Nano {
    const inputRate = Math.max(pricing.inputPerMtok, pricing.audioInputPerMtok ?? 0);
    const outputRate = this.audioOutput ? Math.max(pricing.outputPerMtok, pricing.audioOutputPerMtok ?? 0) : pricing.outputPerMtok;
    return (
      costOfUnits([
        [this.contextTokens + this.pendingTokens, inputRate],
        [this.maxOutputTokens, outputRate],
      ]) + pricing.perRequest
    );
  }
}
