import type { GatewayError } from '../../core/errors.ts';
import { googleErrorBody } from '../../core/google-error-body.ts';
import { usageFromIr } from '../../core/ir/usage.ts';
import type { ChatCall, ChatPassthrough, DecodedResponse, StreamOutcome, StreamRelay, TargetInfo, UpstreamRequest } from '../../core/contracts/vendor-codec.ts';
import type { SseEvent } from '../../core/sse.ts';
import { countTextTokens, type TextCounter } from '../../core/tokens/token-counter.ts';
import { asArray, asObject, parseJsonBytes, utf8Text, type JsonObject } from '../_kit/read.ts';
import { readParts } from './convert-response.ts';
import { usageToIr } from './map-usage.ts';
import { GeminiStreamDecoder } from './stream-decoder.ts';

/**
 * The family's pass-through, for a client that speaks Gemini's own wire (the Google dialect): its
 * request goes upstream as it came — `safetySettings`, `topK`, thought signatures included — with
 * the output cap the gateway reserved for when it set none; the answer comes back as the vendor's
 * bytes but for the model renamed back. Usage is read on the side, as for a translated answer.
 */
export const geminiPassthrough: ChatPassthrough = {
  wire: 'gemini',

  prepare(call, target): UpstreamRequest {
    const body: JsonObject = { ...call.native.body };
    const generation = { ...(asObject(body.generationConfig) ?? {}) };
    // the vendor cannot bill past the hold
    generation.maxOutputTokens ??= call.maxOutputTokens;
    body.generationConfig = generation;
    const method = call.stream ? 'streamGenerateContent?alt=sse' : 'generateContent';
    return { path: `/models/${encodeURIComponent(target.upstreamModel)}:${method}`, body: JSON.stringify(body) };
  },

  decode(_call: ChatCall, target: TargetInfo, raw: Uint8Array): DecodedResponse {
    const json = asObject(parseJsonBytes(raw)) ?? {};
    const usage = usageToIr(json.usageMetadata);
    return { body: renamed(utf8Text(raw), target), contentType: 'application/json', usage: usage && usageFromIr(usage), outputText: textOf(json) };
  },

  relay(call: ChatCall, target: TargetInfo): StreamRelay {
    return new GeminiPassthroughRelay(new GeminiStreamDecoder(target, call.created), target);
  },
};

/** The answer's thoughts, text and function calls: what is counted when the vendor reports no usage. */
function textOf(json: JsonObject): string {
  return asArray(json.candidates)
    .map((candidate) => {
      const { text, reasoning, calls } = readParts(asObject(candidate)?.content, '');
      return reasoning + text + calls.map((call) => call.function.name + call.function.arguments).join('');
    })
    .join('');
}

function renamed(text: string, target: TargetInfo): string {
  if (target.upstreamModel === target.publicModel) return text;
  return text.split(`"modelVersion":"${target.upstreamModel}"`).join(`"modelVersion":"${target.publicModel}"`);
}

/**
 * `?alt=sse` events written as they came (the model renamed back); the family's stream decoder
 * runs beside them for what the pipeline needs: usage (the last report), completeness (every
 * candidate finished), an in-band error (not relayed: the stream ends in Google's envelope).
 */
class GeminiPassthroughRelay implements StreamRelay {
  private readonly decoder: GeminiStreamDecoder;
  private readonly target: TargetInfo;
  private readonly delivered: string[] = [];

  constructor(decoder: GeminiStreamDecoder, target: TargetInfo) {
    this.decoder = decoder;
    this.target = target;
  }

  get failed(): GatewayError | undefined {
    return this.decoder.failed;
  }

  onEvent(event: SseEvent): string {
    const frames = this.decoder.onEvent(event);
    if (this.decoder.failed) return '';
    for (const frame of frames) {
      for (const part of frame) {
        if ((part.type === 'text-delta' || part.type === 'reasoning-delta') && part.text) this.delivered.push(part.text);
        else if (part.type === 'tool-call-start' && part.name) this.delivered.push(part.name);
        else if (part.type === 'tool-call-delta') this.delivered.push(part.argumentsDelta);
      }
    }
    return `data: ${renamed(event.data, this.target)}\r\n\r\n`;
  }

  end(): StreamOutcome {
    const { complete, usage } = this.decoder.end();
    return { complete, usage: usage && usageFromIr(usage), trailer: () => '' };
  }

  errorEvent(error: GatewayError): string {
    return `data: ${JSON.stringify(googleErrorBody(error))}\r\n\r\n`;
  }

  deliveredOutputTokens(count: TextCounter = countTextTokens): number {
    return count(this.delivered.join(''));
  }
}
