import type { GatewayError } from '../core/errors.ts';
import type { IrUsage } from '../core/ir/chat.ts';
import type { IrStreamFrame } from '../core/ir/stream.ts';
import type { ChatStreamEncoder } from '../core/ir/output.ts';
import { irUsage, usageFromIr } from '../core/ir/usage.ts';
import type { Usage } from '../core/usage.ts';
import type { IrStreamDecoder, StreamOutcome, StreamRelay } from '../core/contracts/vendor-codec.ts';
import { countTextTokens, type TextCounter } from '../core/tokens/token-counter.ts';
import type { SseEvent } from '../core/sse.ts';

/**
 * A vendor's stream decoder composed with the client dialect's stream encoder into the text
 * relay the pipeline writes. The pipeline's guarantees hold unchanged: nothing is written before
 * the first frame, the usage is the decoder's last report, a failed or cut stream gets the
 * dialect's in-band error and no terminator, and delivered text is counted for an abandoned stream.
 */
export class IrStreamRelay implements StreamRelay {
  private readonly decoder: IrStreamDecoder;
  private readonly encoder: ChatStreamEncoder;
  private readonly delivered: string[] = [];
  private ended: { complete: boolean; usage: IrUsage | null } | undefined;
  /** the decoder's running usage, read only by an encoder that writes it in every chunk */
  private readonly usageSoFar: () => IrUsage | null;

  constructor(decoder: IrStreamDecoder, encoder: ChatStreamEncoder) {
    this.decoder = decoder;
    this.encoder = encoder;
    this.usageSoFar = decoder.usageSoFar ? () => decoder.usageSoFar!() : () => null;
  }

  get contentType(): string | undefined {
    return this.encoder.contentType;
  }

  get failed(): GatewayError | undefined {
    return this.decoder.failed;
  }

  onEvent(event: SseEvent): string {
    const frames = this.decoder.onEvent(event);
    if (frames.length === 0) return '';
    let out = '';
    for (const frame of frames) {
      this.collect(frame);
      out += this.encoder.frame(frame, this.usageSoFar);
    }
    return out;
  }

  end(): StreamOutcome {
    this.ended ??= this.decoder.end();
    const { complete, usage } = this.ended;
    // no usage reported: the dialect writes the gateway's count, the usage the call is charged for
    return { complete, usage: usage && usageFromIr(usage), trailer: (settled) => (complete ? this.encoder.end(usage ?? irUsageOf(settled)) : '') };
  }

  errorEvent(error: GatewayError): string {
    return this.encoder.error(error);
  }

  deliveredOutputTokens(count: TextCounter = countTextTokens): number {
    return count(this.delivered.join(''));
  }

  /** the text the model wrote: answer, refusal and reasoning text, tool names and arguments (output tokens all) */
  private collect(frame: IrStreamFrame): void {
    for (const part of frame) {
      switch (part.type) {
        case 'text-delta':
        case 'refusal-delta':
        case 'reasoning-delta':
          if (part.text) this.delivered.push(part.text);
          break;
        case 'tool-call-start':
          if (part.name) this.delivered.push(part.name);
          break;
        case 'tool-call-delta':
          if (part.argumentsDelta) this.delivered.push(part.argumentsDelta);
          break;
        case 'start':
        case 'role':
        case 'image':
        case 'finish':
          break;
        default: {
          const unknown: never = part;
          throw new Error(`unknown stream part ${JSON.stringify(unknown)}`);
        }
      }
    }
  }
}

const irUsageOf = (u: Usage): IrUsage =>
  irUsage({ prompt: u.inputTokens, completion: u.outputTokens, cached: u.cachedInputTokens, cacheWrite: u.cacheWriteTokens, reasoning: u.reasoningTokens });
