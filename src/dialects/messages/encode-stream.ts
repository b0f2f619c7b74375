import type { GatewayError } from '../../core/errors.ts';
import type { FinishReason, IrChunk, IrUsage } from '../../core/ir/chat.ts';
import type { ChatStreamEncoder } from '../../core/ir/output.ts';
import { encodeMessagesError } from './encode-error.ts';
import { messageId, messagesUsage } from './encode-usage.ts';
import { stopReasonOf } from './map-stop-reason.ts';

/**
 * IR chunks → the exact messages event sequence (protocols.md §3.5, §4.4), `event:` lines
 * included: message_start on the first chunk; a text block opened at the first text; a tool_use
 * block per new tool call (argument fragments as input_json_delta); blocks closed as the next one
 * opens and at the finish; message_delta (stop reason, usage) and message_stop once the upstream
 * ended properly. Only the first choice is encoded (the format has no `n`).
 */
export class MessagesStreamEncoder implements ChatStreamEncoder {
  private started = false;
  private meta = { id: 'msg_gateway', model: '' };
  private blocks = 0;
  private open: { kind: 'text' | 'tool'; index: number } | null = null;
  /** IR tool-call index → block index */
  private readonly toolBlocks = new Map<number, number>();
  private finish: FinishReason | null = null;
  private stopSequence: string | null = null;

  chunk(chunk: IrChunk): string {
    let out = this.start(chunk);
    for (const choice of chunk.choices) {
      if (choice.index !== 0) continue;
      const delta = choice.delta;
      const text = (delta.content ?? '') + (delta.refusal ?? '');
      if (text !== '') {
        if (this.open?.kind !== 'text') out += this.openBlock('text', { type: 'text', text: '' });
        out += event('content_block_delta', { index: this.open!.index, delta: { type: 'text_delta', text } });
      }
      for (const call of delta.tool_calls ?? []) {
        let block = this.toolBlocks.get(call.index);
        if (block === undefined) {
          out += this.openBlock('tool', { type: 'tool_use', id: call.id ?? '', name: call.function?.name ?? '', input: {} });
          block = this.open!.index;
          this.toolBlocks.set(call.index, block);
        }
        const piece = call.function?.arguments ?? '';
        if (piece !== '') out += event('content_block_delta', { index: block, delta: { type: 'input_json_delta', partial_json: piece } });
      }
      if (choice.finish_reason !== null) {
        out += this.closeBlock();
        this.finish = choice.finish_reason;
        this.stopSequence = choice.stop_sequence ?? null;
      }
    }
    return out;
  }

  end(usage: IrUsage | null): string {
    let out = this.start(null) + this.closeBlock();
    out += event('message_delta', { delta: { stop_reason: stopReasonOf(this.finish, this.stopSequence), stop_sequence: this.stopSequence }, usage: messagesUsage(usage) });
    return out + event('message_stop', {});
  }

  error(error: GatewayError): string {
    return encodeMessagesError(error);
  }

  private start(chunk: IrChunk | null): string {
    if (this.started) return '';
    this.started = true;
    if (chunk) this.meta = { id: messageId(chunk.id), model: chunk.model };
    return event('message_start', {
      message: { ...this.meta, type: 'message', role: 'assistant', content: [], stop_reason: null, stop_sequence: null, usage: messagesUsage(null) },
    });
  }

  private openBlock(kind: 'text' | 'tool', block: Record<string, unknown>): string {
    const out = this.closeBlock();
    this.open = { kind, index: this.blocks++ };
    return out + event('content_block_start', { index: this.open.index, content_block: block });
  }

  private closeBlock(): string {
    if (!this.open) return '';
    const index = this.open.index;
    this.open = null;
    return event('content_block_stop', { index });
  }
}

function event(type: string, body: Record<string, unknown>): string {
  return `event: ${type}\ndata: ${JSON.stringify({ type, ...body })}\n\n`;
}
