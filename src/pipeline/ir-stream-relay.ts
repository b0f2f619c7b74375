import type { GatewayError } from '../core/errors.ts';
import type { IrChunk, IrUsage } from '../core/ir/chat.ts';
import type { ChatStreamEncoder } from '../core/ir/output.ts';
import { irUsage, usageFromIr } from '../core/ir/usage.ts';
import type { Usage } from '../core/usage.ts';
import type { IrStreamDecoder, StreamOutcome, StreamRelay } from '../core/contracts/vendor-codec.ts';
import { countTextTokens } from '../core/tokens/token-counter.ts';
import type { SseEvent } from '../core/sse.ts';

/**
 * A vendor's stream decoder composed with the client dialect's stream encoder into the text
 * relay the pipeline writes. The pipeline's guarantees hold unchanged: nothing is written before
 * the first chunk, the usage is the decoder's last report, a failed or cut stream gets the
 * dialect's in-band error and no terminator, and delivered text is counted for an abandoned stream.
 */
export class IrStreamRelay implements StreamRelay {
  private readonly decoder: IrStreamDecoder;
  private readonly encoder: ChatStreamEncoder;
  private readonly delivered: string[] = [];
  private ended: { complete: boolean; usage: IrUsage | null } | undefined;

  constructor(decoder: IrStreamDecoder, encoder: ChatStreamEncoder) {
    this.decoder = decoder;
    this.encoder = encoder;
  }

  get failed(): GatewayError | undefined {
    return this.decoder.failed;
  }

  onEvent(event: SseEvent): string {
    const chunks = this.decoder.onEvent(event);
    if (chunks.length === 0) return '';
    let out = '';
    for (const chunk of chunks) {
      this.collect(chunk);
      out += this.encoder.chunk(chunk);
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

  deliveredOutputTokens(): number {
    return countTextTokens(this.delivered.join(''));
  }

  private collect(chunk: IrChunk): void {
    for (const choice of chunk.choices) {
      const delta = choice.delta;
      if (delta.content) this.delivered.push(delta.content);
      if (delta.refusal) this.delivered.push(delta.refusal);
      for (const call of delta.tool_calls ?? []) {
        if (call.function?.name) this.delivered.push(call.function.name);
        if (call.function?.arguments) this.delivered.push(call.function.arguments);
      }
    }
  }
}

const irUsageOf = (u: Usage): IrUsage =>
  irUsage({ prompt: u.inputTokens, completion: u.outputTokens, cached: u.cachedInputTokens, cacheWrite: u.cacheWriteTokens, reasoning: u.reasoningTokens });
