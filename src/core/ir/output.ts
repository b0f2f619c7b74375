import type { GatewayError } from '../errors.ts';
import type { IrCompletion, IrUsage } from './chat.ts';
import type { IrStreamFrame } from './stream.ts';

/** A wire format a chat answer is written in: a client's dialect, or a vendor family's own wire. */
export type ChatWire = 'openai-chat' | 'messages' | 'openai-responses' | 'gemini';

/**
 * How IR results reach a client: one implementation per client dialect (OpenAI chat, messages…).
 * The pipeline holds it and composes it with the vendor's codec; vendors never see it.
 */
export interface ChatOutput {
  /** the wire the client reads: a vendor family that speaks it too may pass its bytes through (the fast path) */
  readonly wire: ChatWire;
  readonly contentType: string;
  encodeCompletion(completion: IrCompletion): string;
  /** a fresh encoder per stream */
  streamEncoder(): ChatStreamEncoder;
}

export interface ChatStreamEncoder {
  /**
   * one frame of IR parts → client text ('' = nothing to write yet); `usage` reads the running
   * usage the vendor reported so far (null: none yet), for a wire that repeats it in every chunk
   */
  frame(parts: IrStreamFrame, usage?: () => IrUsage | null): string;
  /** the upstream ended the stream properly: closing events (usage, terminator) */
  end(usage: IrUsage | null): string;
  /** an in-band error in the dialect, written before closing a failed stream */
  error(error: GatewayError): string;
  /** the stream's Content-Type when it is not `text/event-stream` (Google's JSON-array stream) */
  readonly contentType?: string;
}
