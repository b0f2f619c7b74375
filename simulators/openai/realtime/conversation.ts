// The conversation a simulated realtime session keeps, and the usage a response reports from it:
// every response bills its whole context as input (protocols.md §2.9), text and audio apart.
import { randomBytes } from 'node:crypto';
import { countTokens } from '../text.ts';
import { bytesPerSecond, isObject, type AudioFormat, type Json } from './wire.ts';

/** input audio: 10 tokens per second; output audio: 20 tokens per second of 24 kHz PCM16 (2,400 bytes a token) */
const INPUT_AUDIO_TOKENS_PER_SECOND = 10;
const OUTPUT_AUDIO_BYTES_PER_TOKEN = 2_400;

export interface SimItem {
  id: string;
  role: string;
  /** text the item carries (message text, transcript, function output) */
  text: string;
  textTokens: number;
  audioTokens: number;
}

export const newSimId = (prefix: string): string => `${prefix}_${randomBytes(12).toString('base64url')}`;

export function inputAudioTokens(bytes: number, format: AudioFormat): number {
  return bytes === 0 ? 0 : Math.ceil((bytes / bytesPerSecond(format)) * INPUT_AUDIO_TOKENS_PER_SECOND);
}

export function outputAudioTokens(bytes: number): number {
  return Math.ceil(bytes / OUTPUT_AUDIO_BYTES_PER_TOKEN);
}

export class Conversation {
  readonly items: SimItem[] = [];

  get lastId(): string | null {
    return this.items.at(-1)?.id ?? null;
  }

  add(item: SimItem): void {
    this.items.push(item);
  }

  remove(id: string): boolean {
    const at = this.items.findIndex((i) => i.id === id);
    if (at < 0) return false;
    this.items.splice(at, 1);
    return true;
  }

  /** the text of the latest user item that has any (directives and the echo come from it) */
  lastUserText(): string {
    for (let i = this.items.length - 1; i >= 0; i--) {
      const item = this.items[i]!;
      if (item.role === 'user' && item.text !== '') return item.text;
    }
    return '';
  }

  lastUserAudioTokens(): number {
    const last = this.items.at(-1);
    return last?.role === 'user' ? last.audioTokens : 0;
  }

  /**
   * What a response's input costs: instructions and every item, split into text and audio. A
   * response given its own `input` items reads those (and the conversation items they reference)
   * instead of the conversation.
   */
  input(instructions: string, outOfBand: boolean, ownInput?: unknown[]): { text: number; audio: number } {
    let text = countTokens(instructions);
    let audio = 0;
    const items = ownInput ? this.resolve(ownInput) : outOfBand ? [] : this.items;
    for (const item of items) {
      text += item.textTokens;
      audio += item.audioTokens;
    }
    return { text, audio };
  }

  /** a response's own input items, counted as the conversation's items are */
  private resolve(input: unknown[]): SimItem[] {
    const items: SimItem[] = [];
    for (const entry of input) {
      if (!isObject(entry)) continue;
      if (entry.type === 'item_reference') {
        const found = this.items.find((i) => i.id === entry.id);
        if (found) items.push(found);
        continue;
      }
      let text = typeof entry.output === 'string' ? entry.output : '';
      for (const part of Array.isArray(entry.content) ? entry.content : []) if (isObject(part) && typeof part.text === 'string') text += part.text;
      items.push({ id: '', role: String(entry.role ?? ''), text, textTokens: countTokens(text) + 4, audioTokens: 0 });
    }
    return items;
  }
}

export function usageJson(input: { text: number; audio: number }, cachedText: number, output: { text: number; audio: number }): Json {
  const cached = Math.min(cachedText, input.text);
  const inputTokens = input.text + input.audio;
  const outputTokens = output.text + output.audio;
  return {
    total_tokens: inputTokens + outputTokens,
    input_tokens: inputTokens,
    output_tokens: outputTokens,
    input_token_details: {
      text_tokens: input.text,
      audio_tokens: input.audio,
      image_tokens: 0,
      cached_tokens: cached,
      cached_tokens_details: { text_tokens: cached, audio_tokens: 0, image_tokens: 0 },
    },
    output_token_details: { text_tokens: output.text, audio_tokens: output.audio },
  };
}

const DIRECTIVE = /\[\[sim:([a-z-]+)(?:=(\d+))?\]\]/g;

/**
 * Realtime scenario directives, written in a user text item:
 *   [[sim:cached=N]]     report N cached (text) input tokens
 *   [[sim:words=N]]      reply with at least N words
 *   [[sim:hold]]         stop after the first delta until the response is cancelled
 *   [[sim:close=CODE]]   close the socket with CODE right after response.created
 *   [[sim:big-audio=N]]  send N extra audio deltas of 64 KiB each (backpressure)
 *   [[sim:fail]]         end the response with status "failed" (usage still reported)
 */
export interface RealtimeDirectives {
  cached: number;
  words: number | undefined;
  hold: boolean;
  close: number | undefined;
  bigAudio: number;
  fail: boolean;
}

export function readDirectives(text: string): RealtimeDirectives {
  const d: RealtimeDirectives = { cached: 0, words: undefined, hold: false, close: undefined, bigAudio: 0, fail: false };
  if (!text.includes('[[sim:')) return d;
  for (const match of text.matchAll(DIRECTIVE)) {
    const value = match[2] === undefined ? undefined : Number(match[2]);
    switch (match[1]) {
      case 'cached':
        d.cached = value ?? 0;
        break;
      case 'words':
        d.words = value;
        break;
      case 'hold':
        d.hold = true;
        break;
      case 'close':
        d.close = value;
        break;
      case 'big-audio':
        d.bigAudio = value ?? 0;
        break;
      case 'fail':
        d.fail = true;
        break;
    }
  }
  return d;
}
