import type { GatewayError } from '../errors.ts';
import type { IrChunk, IrCompletion, IrUsage } from './chat.ts';

/**
 * How IR results reach a client: one implementation per client dialect (OpenAI chat, messages…).
 * Vendor codecs receive it with the call, so they never import a dialect.
 */
export interface ChatOutput {
  /**
   * The client dialect. `openai` is the IR's own wire form: an upstream that speaks it may pass
   * its bytes through unchanged.
   */
  readonly dialect: string;
  readonly contentType: string;
  encodeCompletion(completion: IrCompletion): string;
  /** a fresh encoder per stream */
  streamEncoder(): ChatStreamEncoder;
}

export interface ChatStreamEncoder {
  /** one IR chunk → client text ('' = nothing to write yet) */
  chunk(chunk: IrChunk): string;
  /** the upstream ended the stream properly: closing events (usage, terminator) */
  end(usage: IrUsage | null): string;
  /** an in-band error in the dialect, written before closing a failed stream */
  error(error: GatewayError): string;
}
