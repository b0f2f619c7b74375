import { GatewayError, upstreamUnavailable } from '../../core/errors.ts';
import type { Usage } from '../../core/usage.ts';
import type { StreamOutcome, StreamRelay, TargetInfo } from '../../pipeline/codec.ts';
import { countTextTokens } from '../../pipeline/token-counter.ts';
import { sseData, type SseEvent } from '../_kit/sse.ts';
import { fromOpenAIUsage } from './usage.ts';

const DONE = sseData('[DONE]');
const STARTS_WITH_ERROR = /^\s*\{\s*"error"\s*:/;

/**
 * Relays an OpenAI-dialect stream to an OpenAI-dialect client, event by event, unchanged but
 * for three things: the usage-only chunk is dropped when the client did not ask for it, the
 * model id is renamed back when the provider maps it, and an in-band upstream error stops the
 * stream. Usage is read on the side; cumulative, so the last report wins.
 */
export class OpenAIPassthroughRelay implements StreamRelay {
  private usage: Usage | null = null;
  private done = false;
  private readonly delivered: string[] = [];
  private readonly renameFrom: string | null;
  private readonly renameTo: string;
  private readonly clientWantsUsage: boolean;
  private readonly outputText: (json: Record<string, unknown>) => string;
  failed: GatewayError | undefined;

  constructor(target: TargetInfo, clientWantsUsage: boolean, outputText: (json: Record<string, unknown>) => string) {
    this.clientWantsUsage = clientWantsUsage;
    this.outputText = outputText;
    this.renameFrom = target.upstreamModel === target.publicModel ? null : `"model":"${target.upstreamModel}"`;
    this.renameTo = `"model":"${target.publicModel}"`;
  }

  onEvent(event: SseEvent): string {
    let data = event.data;
    if (data === '[DONE]') {
      this.done = true;
      return '';
    }
    if (this.done || this.failed) return '';
    if (STARTS_WITH_ERROR.test(data)) {
      this.failed = inBandError(data);
      return '';
    }
    // only the usage chunk carries a usage object; the others carry `"usage":null` or nothing
    if (data.includes('"usage":{')) {
      const json = parseOrNull(data);
      this.usage = fromOpenAIUsage(json?.usage) ?? this.usage;
      if (!this.clientWantsUsage && Array.isArray(json?.choices) && json.choices.length === 0) return '';
    }
    if (this.renameFrom !== null) data = data.replace(this.renameFrom, this.renameTo);
    this.delivered.push(data);
    return sseData(data);
  }

  end(): StreamOutcome {
    return { complete: this.done, usage: this.usage, trailer: this.done ? DONE : '' };
  }

  errorEvent(error: GatewayError): string {
    return sseData(JSON.stringify({ error: { message: error.message, type: error.type, param: error.param, code: error.code } }));
  }

  /** Parses the delivered chunks only when needed: a stream the client abandoned. */
  deliveredOutputTokens(): number {
    let text = '';
    for (const data of this.delivered) {
      try {
        text += this.outputText(JSON.parse(data) as Record<string, unknown>);
      } catch {
        // a malformed upstream event carries no countable text
      }
    }
    return countTextTokens(text);
  }
}

function parseOrNull(data: string): { usage?: unknown; choices?: unknown } | null {
  try {
    return JSON.parse(data) as { usage?: unknown; choices?: unknown };
  } catch {
    return null;
  }
}

export function inBandError(data: string): GatewayError {
  try {
    const parsed = JSON.parse(data) as { error?: { message?: unknown } };
    const message = typeof parsed.error?.message === 'string' ? parsed.error.message : 'stream failed';
    return upstreamUnavailable(`The upstream provider failed mid-stream: ${message}`, 502, 'upstream_stream_error');
  } catch {
    return upstreamUnavailable('The upstream provider failed mid-stream.', 502, 'upstream_stream_error');
  }
}
