import type { GatewayError } from '../../core/errors.ts';
import type { FinishReason, IrUsage } from '../../core/ir/chat.ts';
import type { IrStreamFrame } from '../../core/ir/stream.ts';
import type { ChatStreamEncoder } from '../../core/ir/output.ts';
import { UNSIGNED } from './encode.ts';
import { encodeMessagesError } from './encode-error.ts';
import { messageId, messagesUsage } from './encode-usage.ts';
import { stopReasonOf } from './map-stop-reason.ts';

/**
 * IR parts → the exact messages event sequence (protocols.md §3.5, §4.4), `event:` lines
 * included: message_start on the first frame; a text block opened at the first text (a frame's
 * text and refusal pieces written as one text_delta); a tool_use block per new tool call
 * (argument fragments as input_json_delta); blocks closed as the next one opens and at the
 * finish; message_delta (stop reason, usage) and message_stop once the upstream ended properly.
 * With `thinking` (the request turned it on), reasoning pieces go in a thinking block opened
 * empty, as Anthropic's, written as thinking_deltas and closed by a signature_delta (unsigned:
 * encode.ts) before its content_block_stop. Only the first choice is encoded (the format has no
 * `n`); images and roles are not written.
 */
export class MessagesStreamEncoder implements ChatStreamEncoder {
  private readonly thinking: boolean;
  private started = false;
  private meta = { id: 'msg_gateway', model: '' };
  private blocks = 0;
  private open: { kind: BlockKind; index: number } | null = null;
  /** IR tool-call index → block index */
  private readonly toolBlocks = new Map<number, number>();
  private finish: FinishReason | null = null;
  private stopSequence: string | null = null;

  constructor(thinking = false) {
    this.thinking = thinking;
  }

  frame(parts: IrStreamFrame): string {
    const first = parts[0];
    let out = this.start(first?.type === 'start' ? first : null);
    /** the frame's text (or reasoning) so far, written as one delta before whatever follows it */
    let text = '';
    let kind: 'text' | 'thinking' = 'text';
    const flush = (): string => {
      if (text === '') return '';
      let written = this.open?.kind === kind ? '' : this.openBlock(kind, kind === 'text' ? { type: 'text', text: '' } : { type: 'thinking', thinking: '', signature: '' });
      const delta = kind === 'text' ? { type: 'text_delta', text } : { type: 'thinking_delta', thinking: text };
      written += event('content_block_delta', { index: this.open!.index, delta });
      text = '';
      return written;
    };
    const append = (piece: string, as: 'text' | 'thinking') => {
      if (as !== kind) {
        out += flush();
        kind = as;
      }
      text += piece;
    };
    for (const part of parts) {
      if (part.type !== 'start' && part.choice !== 0) continue;
      switch (part.type) {
        case 'start':
        case 'role':
        case 'image':
          break;
        case 'reasoning-delta':
          if (this.thinking) append(part.text, 'thinking');
          break;
        case 'text-delta':
        case 'refusal-delta':
          append(part.text, 'text');
          break;
        case 'tool-call-start':
          out += flush() + this.toolBlock(part.index, part.id ?? '', part.name ?? '');
          break;
        case 'tool-call-delta': {
          out += flush() + this.toolBlock(part.index, '', '');
          if (part.argumentsDelta !== '') out += event('content_block_delta', { index: this.toolBlocks.get(part.index)!, delta: { type: 'input_json_delta', partial_json: part.argumentsDelta } });
          break;
        }
        case 'finish':
          out += flush() + this.closeBlock();
          this.finish = part.reason;
          this.stopSequence = part.stopSequence ?? null;
          break;
        default: {
          const unknown: never = part;
          throw new Error(`unknown stream part ${JSON.stringify(unknown)}`);
        }
      }
    }
    return out + flush();
  }

  end(usage: IrUsage | null): string {
    let out = this.start(null) + this.closeBlock();
    out += event('message_delta', { delta: { stop_reason: stopReasonOf(this.finish, this.stopSequence), stop_sequence: this.stopSequence }, usage: messagesUsage(usage) });
    return out + event('message_stop', {});
  }

  error(error: GatewayError): string {
    return encodeMessagesError(error);
  }

  /** message_start, once, named after the first frame's start part */
  private start(start: { id: string; model: string } | null): string {
    if (this.started) return '';
    this.started = true;
    if (start) this.meta = { id: messageId(start.id), model: start.model };
    return event('message_start', {
      message: { ...this.meta, type: 'message', role: 'assistant', content: [], stop_reason: null, stop_sequence: null, usage: messagesUsage(null) },
    });
  }

  /** opens the tool_use block of a call not seen before ('' when it is open already) */
  private toolBlock(call: number, id: string, name: string): string {
    if (this.toolBlocks.has(call)) return '';
    const out = this.openBlock('tool', { type: 'tool_use', id, name, input: {} });
    this.toolBlocks.set(call, this.open!.index);
    return out;
  }

  private openBlock(kind: BlockKind, block: Record<string, unknown>): string {
    const out = this.closeBlock();
    this.open = { kind, index: this.blocks++ };
    return out + event('content_block_start', { index: this.open.index, content_block: block });
  }

  private closeBlock(): string {
    if (!this.open) return '';
    const { index, kind } = this.open;
    this.open = null;
    const signed = kind === 'thinking' ? event('content_block_delta', { index, delta: { type: 'signature_delta', signature: UNSIGNED } }) : '';
    return signed + event('content_block_stop', { index });
  }
}

type BlockKind = 'text' | 'thinking' | 'tool';

function event(type: string, body: Record<string, unknown>): string {
  return `event: ${type}\ndata: ${JSON.stringify({ type, ...body })}\n\n`;
}
