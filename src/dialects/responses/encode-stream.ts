import type { GatewayError } from '../../core/errors.ts';
import type { FinishReason, IrUsage } from '../../core/ir/chat.ts';
import type { ChatStreamEncoder } from '../../core/ir/output.ts';
import type { IrStreamFrame } from '../../core/ir/stream.ts';
import { answerIds, functionCallItem, messageItem, outputTextPart, prefixed, reasoningItem, responseObject, statusOf, type RequestEcho, type ResponseMeta } from './response-object.ts';

type Json = Record<string, unknown>;

interface CallItem {
  id: string;
  callId: string;
  name: string;
  args: string;
  outputIndex: number;
  done: boolean;
}

/**
 * IR parts → the Responses event sequence, `event:` lines and `sequence_number` from 0:
 * response.created and response.in_progress on the first frame; with `withReasoning`, a reasoning
 * item opened at the first reasoning text (output_item.added, reasoning_summary_part.added,
 * reasoning_summary_text.delta…) and closed when anything else starts or the answer ends
 * (reasoning_summary_text.done, reasoning_summary_part.done, output_item.done); a message item opened at the
 * first text (output_item.added, content_part.added, output_text.delta…) and closed when a
 * function call starts or the answer ends (output_text.done, content_part.done, output_item.done);
 * a function_call item per tool call (function_call_arguments.delta…, closed at the end); then
 * response.completed (or response.incomplete) with the whole response and its usage. Only the
 * first choice is encoded (the wire has no `n`); images are not written.
 */
export class ResponsesStreamEncoder implements ChatStreamEncoder {
  private readonly echo: RequestEcho;
  private readonly onFinal: ((response: Json) => void) | undefined;
  private readonly responseId: string | undefined;
  private sequence = 0;
  private messageBase = '';
  private reasoningBase = '';
  private readonly withReasoning: boolean;
  private reasoning: { id: string; outputIndex: number; text: string; done: boolean } | undefined;
  private meta: ResponseMeta | undefined;
  private readonly output: Json[] = [];
  private message: { id: string; outputIndex: number; text: string; refusal: string; done: boolean } | undefined;
  private readonly calls = new Map<number, CallItem>();
  private finish: FinishReason | null = null;

  /** `responseId` names the answer (else the vendor's id does); `onFinal` gets the complete response; `withReasoning` writes reasoning text */
  constructor(echo: RequestEcho, onFinal?: (response: Json) => void, responseId?: string, withReasoning = false) {
    this.echo = echo;
    this.onFinal = onFinal;
    this.responseId = responseId;
    this.withReasoning = withReasoning;
  }

  frame(parts: IrStreamFrame): string {
    const first = parts[0];
    let out = this.start(first?.type === 'start' ? first : null);
    for (const part of parts) {
      if (part.type !== 'start' && part.choice !== 0) continue;
      switch (part.type) {
        case 'start':
        case 'role':
        case 'image':
          break;
        case 'reasoning-delta':
          if (part.text === '' || !this.withReasoning) break;
          out += this.closeMessage() + this.openReasoning();
          this.reasoning!.text += part.text;
          out += this.event('response.reasoning_summary_text.delta', { ...this.reasoningAt(), delta: part.text });
          break;
        case 'text-delta':
        case 'refusal-delta':
          if (part.text === '') break;
          out += this.closeReasoning() + this.openMessage();
          if (part.type === 'text-delta') {
            this.message!.text += part.text;
            out += this.event('response.output_text.delta', { item_id: this.message!.id, output_index: this.message!.outputIndex, content_index: 0, delta: part.text, logprobs: [] });
          } else {
            this.message!.refusal += part.text;
          }
          break;
        case 'tool-call-start':
          out += this.closeReasoning() + this.closeMessage() + this.openCall(part.index, part.id ?? '', part.name ?? '');
          break;
        case 'tool-call-delta': {
          out += this.closeReasoning() + this.closeMessage() + this.openCall(part.index, '', '');
          const call = this.calls.get(part.index)!;
          if (part.argumentsDelta === '') break;
          call.args += part.argumentsDelta;
          out += this.event('response.function_call_arguments.delta', { item_id: call.id, output_index: call.outputIndex, delta: part.argumentsDelta });
          break;
        }
        case 'finish':
          this.finish = part.reason;
          break;
        default: {
          const unknown: never = part;
          throw new Error(`unknown stream part ${JSON.stringify(unknown)}`);
        }
      }
    }
    return out;
  }

  end(usage: IrUsage | null): string {
    let out = this.start(null) + this.closeReasoning() + this.closeMessage();
    for (const call of this.calls.values()) out += this.closeCall(call);
    const status = statusOf(this.finish);
    const type = status === 'incomplete' ? 'response.incomplete' : 'response.completed';
    const response = responseObject(this.meta!, this.echo, status, this.output, this.finish, usage);
    this.onFinal?.(response);
    return out + this.event(type, { response });
  }

  error(error: GatewayError): string {
    const body = { code: error.code ?? error.type, message: error.message };
    let out = this.start(null);
    out += this.event('error', { ...body, param: error.param ?? null });
    return out + this.event('response.failed', { response: responseObject(this.meta!, this.echo, 'failed', this.output, this.finish, null, body) });
  }

  /** response.created and response.in_progress, once, named after the first frame's start part */
  private start(start: { id: string; created: number; model: string } | null): string {
    if (this.meta) return '';
    const ids = answerIds(this.responseId ?? start?.id ?? 'gateway');
    this.messageBase = ids.message;
    this.reasoningBase = ids.reasoning;
    this.meta = { id: ids.response, createdAt: start?.created ?? Math.floor(Date.now() / 1000), model: start?.model ?? '' };
    const snapshot = responseObject(this.meta, this.echo, 'in_progress', [], null, null);
    return this.event('response.created', { response: snapshot }) + this.event('response.in_progress', { response: snapshot });
  }

  /** opens a reasoning item ('' when one is open): its one summary part begins empty */
  private openReasoning(): string {
    if (this.reasoning && !this.reasoning.done) return '';
    const id = this.reasoningBase + (this.reasoning ? `_${this.output.length}` : '');
    this.reasoning = { id, outputIndex: this.output.length, text: '', done: false };
    this.output.push(reasoningItem(id, null));
    return this.event('response.output_item.added', { output_index: this.reasoning.outputIndex, item: reasoningItem(id, null) }) + this.event('response.reasoning_summary_part.added', { ...this.reasoningAt(), part: { type: 'summary_text', text: '' } });
  }

  private reasoningAt(): Json {
    return { item_id: this.reasoning!.id, output_index: this.reasoning!.outputIndex, summary_index: 0 };
  }

  /** closes the open reasoning item; cut by the output cap while reasoning, its part is marked incomplete */
  private closeReasoning(): string {
    const reasoning = this.reasoning;
    if (!reasoning || reasoning.done) return '';
    reasoning.done = true;
    const item = reasoningItem(reasoning.id, reasoning.text);
    this.output[reasoning.outputIndex] = item;
    const cut = reasoning.outputIndex === this.output.length - 1 && statusOf(this.finish) === 'incomplete';
    const part = { type: 'summary_text', text: reasoning.text };
    return (
      this.event('response.reasoning_summary_text.done', { ...this.reasoningAt(), text: reasoning.text }) +
      this.event('response.reasoning_summary_part.done', { ...this.reasoningAt(), part, ...(cut && { status: 'incomplete' }) }) +
      this.event('response.output_item.done', { output_index: reasoning.outputIndex, item })
    );
  }

  private openMessage(): string {
    if (this.message && !this.message.done) return '';
    const id = this.messageBase + (this.message ? `_${this.output.length}` : '');
    this.message = { id, outputIndex: this.output.length, text: '', refusal: '', done: false };
    this.output.push(messageItem(id, 'in_progress', []));
    const at = { item_id: id, output_index: this.message.outputIndex };
    return this.event('response.output_item.added', { output_index: at.output_index, item: messageItem(id, 'in_progress', []) }) + this.event('response.content_part.added', { ...at, content_index: 0, part: outputTextPart('') });
  }

  private closeMessage(): string {
    const message = this.message;
    if (!message || message.done) return '';
    message.done = true;
    const at = { item_id: message.id, output_index: message.outputIndex };
    const part = outputTextPart(message.text);
    const content: Json[] = message.text !== '' || message.refusal === '' ? [part] : [];
    if (message.refusal !== '') content.push({ type: 'refusal', refusal: message.refusal });
    const item = messageItem(message.id, statusOf(this.finish) === 'incomplete' ? 'incomplete' : 'completed', content);
    this.output[message.outputIndex] = item;
    return (
      this.event('response.output_text.done', { ...at, content_index: 0, text: message.text, logprobs: [] }) +
      this.event('response.content_part.done', { ...at, content_index: 0, part }) +
      this.event('response.output_item.done', { output_index: at.output_index, item })
    );
  }

  /** opens the function_call item of a call not seen before ('' when it is open already) */
  private openCall(index: number, callId: string, name: string): string {
    if (this.calls.has(index)) return '';
    const call: CallItem = { id: prefixed('fc_', callId || `${this.meta!.id}_${index}`), callId, name, args: '', outputIndex: this.output.length, done: false };
    this.calls.set(index, call);
    const item = functionCallItem(call.id, callId, name, '', 'in_progress');
    this.output.push(item);
    return this.event('response.output_item.added', { output_index: call.outputIndex, item });
  }

  private closeCall(call: CallItem): string {
    if (call.done) return '';
    call.done = true;
    const item = functionCallItem(call.id, call.callId, call.name, call.args, 'completed');
    this.output[call.outputIndex] = item;
    return this.event('response.function_call_arguments.done', { item_id: call.id, output_index: call.outputIndex, arguments: call.args }) + this.event('response.output_item.done', { output_index: call.outputIndex, item });
  }

  private event(type: string, body: Json): string {
    return `event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: this.sequence++, ...body })}\n\n`;
  }
}
