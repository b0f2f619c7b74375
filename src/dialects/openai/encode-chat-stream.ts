import type { GatewayError } from '../../core/errors.ts';
import type { IrChunk, IrUsage } from '../../core/ir/chat.ts';
import type { ChatStreamEncoder } from '../../core/ir/output.ts';
import { encodeUsage } from './encode-chat.ts';

const DONE = 'data: [DONE]\n\n';

/**
 * IR chunks → OpenAI `chat.completion.chunk` events (protocols.md §1.6): one `data:` line per
 * chunk, `"usage": null` on every chunk and one usage chunk with empty `choices` at the end
 * when the client asked for usage, then `data: [DONE]`.
 */
export class OpenAIChatStreamEncoder implements ChatStreamEncoder {
  private readonly wantsUsage: boolean;
  private meta = { id: 'chatcmpl-gateway', created: 0, model: '' };

  constructor(wantsUsage: boolean) {
    this.wantsUsage = wantsUsage;
  }

  chunk(chunk: IrChunk): string {
    this.meta = { id: chunk.id, created: chunk.created, model: chunk.model };
    return event({
      id: chunk.id,
      object: 'chat.completion.chunk',
      created: chunk.created,
      model: chunk.model,
      choices: chunk.choices.map((c) => ({ index: c.index, delta: c.delta, logprobs: null, finish_reason: c.finish_reason })),
      ...(this.wantsUsage && { usage: null }),
    });
  }

  end(usage: IrUsage | null): string {
    if (!this.wantsUsage || !usage) return DONE;
    return event({ ...this.meta, object: 'chat.completion.chunk', choices: [], usage: encodeUsage(usage) }) + DONE;
  }

  error(error: GatewayError): string {
    return event({ error: { message: error.message, type: error.type, param: error.param, code: error.code } });
  }
}

function event(body: unknown): string {
  return `data: ${JSON.stringify(body)}\n\n`;
}
