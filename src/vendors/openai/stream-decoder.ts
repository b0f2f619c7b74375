import type { GatewayError } from '../../core/errors.ts';
import type { IrChunk, IrUsage } from '../../core/ir/chat.ts';
import type { IrStreamDecoder, TargetInfo } from '../../core/contracts/vendor-codec.ts';
import { asObject, parseJson } from '../_kit/read.ts';
import type { SseEvent } from '../../core/sse.ts';
import { chunkToIr, usageToIr } from './convert-response.ts';
import { inBandError } from './passthrough-relay.ts';

/** OpenAI chat chunks → IR chunks; the usage chunk and `[DONE]` are read on the side. */
export class OpenAIStreamDecoder implements IrStreamDecoder {
  private readonly target: TargetInfo;
  private readonly created: number;
  private usage: IrUsage | null = null;
  private done = false;
  failed: GatewayError | undefined;

  constructor(target: TargetInfo, created: number) {
    this.target = target;
    this.created = created;
  }

  onEvent(event: SseEvent): IrChunk[] {
    if (this.done || this.failed) return [];
    if (event.data === '[DONE]') {
      this.done = true;
      return [];
    }
    const json = asObject(parseJson(event.data));
    if (!json) return [];
    if (json.error !== undefined) {
      this.failed = inBandError(event.data);
      return [];
    }
    this.usage = usageToIr(json.usage) ?? this.usage;
    const chunk = chunkToIr(json, this.target, this.created);
    return chunk ? [chunk] : [];
  }

  end(): { complete: boolean; usage: IrUsage | null } {
    return { complete: this.done, usage: this.usage };
  }
}
