import type { GatewayError } from '../../core/errors.ts';
import type { StreamOutcome, StreamRelay, TargetInfo } from '../../core/contracts/vendor-codec.ts';
import { countTextTokens, type TextCounter } from '../../core/tokens/token-counter.ts';
import { asObject, asString, parseJson, type JsonObject } from '../_kit/read.ts';
import { sseData, sseNamed, type SseEvent } from '../../core/sse.ts';
import { inBandError } from './errors.ts';
import { mergeUsage, messagesUsage } from './map-usage.ts';
import { messagesErrorEvent } from './messages-error.ts';

/**
 * Relays a native messages stream to a messages client event by event, `event:` lines kept.
 * Only `message_start` and `message_delta` are parsed (usage, read on the side; the model id
 * renamed back when the provider maps it); `error` stops the stream; `message_stop` ends it, and
 * is written as the trailer, after the last `message_delta`: after the call's charge is settled,
 * never before (a process killed in between would have delivered a whole answer unbilled).
 */
export class AnthropicPassthroughRelay implements StreamRelay {
  private usage: JsonObject | undefined;
  private done = false;
  private stop = '';
  /** the last message_delta (final stop reason and usage), written as part of the trailer */
  private lastDelta = '';
  private readonly deltas: string[] = [];
  private readonly renameFrom: string | null;
  private readonly renameTo: string;
  failed: GatewayError | undefined;

  constructor(target: TargetInfo) {
    this.renameFrom = target.upstreamModel === target.publicModel ? null : `"model":"${target.upstreamModel}"`;
    this.renameTo = `"model":"${target.publicModel}"`;
  }

  onEvent(event: SseEvent): string {
    if (this.done || this.failed) return '';
    let data = event.data;
    // a held message_delta goes out before anything that follows it but message_stop
    const held = event.event === 'message_delta' || event.event === 'message_stop' ? '' : this.lastDelta;
    if (held !== '') this.lastDelta = '';
    switch (event.event) {
      case 'message_start':
        this.usage = mergeUsage(this.usage, asObject(asObject(parseJson(data))?.message)?.usage);
        if (this.renameFrom !== null) data = data.replace(this.renameFrom, this.renameTo);
        break;
      case 'message_delta': {
        this.usage = mergeUsage(this.usage, asObject(parseJson(data))?.usage);
        // the last one goes out with the trailer (the pipeline adds to its usage what it settled); an earlier one now
        const earlier = this.lastDelta;
        this.lastDelta = sseNamed('message_delta', data);
        return earlier;
      }
      case 'content_block_delta':
        this.deltas.push(data);
        break;
      case 'message_stop':
        this.done = true;
        this.stop = event.event === undefined ? sseData(data) : sseNamed(event.event, data);
        return '';
      case 'error':
        this.failed = inBandError(asObject(parseJson(data)) ?? {});
        return '';
      default:
    }
    return held + (event.event === undefined ? sseData(data) : sseNamed(event.event, data));
  }

  end(): StreamOutcome {
    const trailer = this.done ? this.lastDelta + this.stop : '';
    return { complete: this.done, usage: messagesUsage(this.usage), trailer: () => trailer };
  }

  errorEvent(error: GatewayError): string {
    return messagesErrorEvent(error);
  }

  /** Parses the delivered deltas only when needed: a stream the client abandoned. */
  deliveredOutputTokens(count: TextCounter = countTextTokens): number {
    let text = '';
    for (const data of this.deltas) {
      const delta = asObject(asObject(parseJson(data))?.delta);
      text += asString(delta?.text) ?? asString(delta?.partial_json) ?? asString(delta?.thinking) ?? '';
    }
    return count(text);
  }
}
