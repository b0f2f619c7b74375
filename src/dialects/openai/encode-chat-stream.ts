import type { GatewayError } from '../../core/errors.ts';
import type { FinishReason, IrOutputImage, IrUsage } from '../../core/ir/chat.ts';
import type { IrStreamFrame } from '../../core/ir/stream.ts';
import type { ChatStreamEncoder } from '../../core/ir/output.ts';
import { encodeUsage } from './encode-chat.ts';

const DONE = 'data: [DONE]\n\n';

interface ToolCallDelta {
  index: number;
  id?: string;
  name?: string;
  arguments?: string;
}

interface ChoiceDelta {
  index: number;
  role?: 'assistant';
  content?: string;
  refusal?: string;
  reasoning?: string;
  calls: ToolCallDelta[];
  images: IrOutputImage[];
  finish: FinishReason | null;
}

/**
 * IR parts → OpenAI `chat.completion.chunk` events (protocols.md §1.6): one `data:` line per
 * frame, its parts gathered by choice into deltas, `"usage": null` on every chunk and one usage
 * chunk with empty `choices` at the end when the client asked for usage, then `data: [DONE]`.
 * The model's reasoning text, when the vendor showed it, goes in `delta.reasoning_content`.
 */
export class OpenAIChatStreamEncoder implements ChatStreamEncoder {
  private readonly wantsUsage: boolean;
  private meta = { id: 'chatcmpl-gateway', created: 0, model: '' };

  constructor(wantsUsage: boolean) {
    this.wantsUsage = wantsUsage;
  }

  frame(parts: IrStreamFrame): string {
    const choices = new Map<number, ChoiceDelta>();
    const at = (index: number): ChoiceDelta => {
      let choice = choices.get(index);
      if (!choice) choices.set(index, (choice = { index, calls: [], images: [], finish: null }));
      return choice;
    };
    const call = (choice: number, index: number): ToolCallDelta => {
      const calls = at(choice).calls;
      let item = calls.find((c) => c.index === index);
      if (!item) calls.push((item = { index }));
      return item;
    };
    for (const part of parts) {
      switch (part.type) {
        case 'start':
          this.meta = { id: part.id, created: part.created, model: part.model };
          break;
        case 'role':
          at(part.choice).role = part.role;
          break;
        case 'text-delta': {
          const choice = at(part.choice);
          choice.content = (choice.content ?? '') + part.text;
          break;
        }
        case 'refusal-delta': {
          const choice = at(part.choice);
          choice.refusal = (choice.refusal ?? '') + part.text;
          break;
        }
        case 'tool-call-start': {
          const item = call(part.choice, part.index);
          if (part.id !== undefined) item.id = part.id;
          if (part.name !== undefined) item.name = part.name;
          break;
        }
        case 'tool-call-delta': {
          const item = call(part.choice, part.index);
          item.arguments = (item.arguments ?? '') + part.argumentsDelta;
          break;
        }
        case 'image':
          at(part.choice).images.push(part.image);
          break;
        case 'reasoning-delta': {
          const choice = at(part.choice);
          choice.reasoning = (choice.reasoning ?? '') + part.text;
          break;
        }
        case 'finish':
          at(part.choice).finish = part.reason;
          break;
        default: {
          const unknown: never = part;
          throw new Error(`unknown stream part ${JSON.stringify(unknown)}`);
        }
      }
    }
    if (choices.size === 0) return '';
    return event({
      id: this.meta.id,
      object: 'chat.completion.chunk',
      created: this.meta.created,
      model: this.meta.model,
      choices: [...choices.values()].map((c) => ({ index: c.index, delta: deltaOf(c), logprobs: null, finish_reason: c.finish })),
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

/** A choice's delta, its fields in OpenAI's order. */
function deltaOf(c: ChoiceDelta): Record<string, unknown> {
  return {
    ...(c.role !== undefined && { role: c.role }),
    ...(c.content !== undefined && { content: c.content }),
    ...(c.refusal !== undefined && { refusal: c.refusal }),
    // not OpenAI's: the field DeepSeek and vLLM stream the reasoning text in, which clients read
    ...(c.reasoning !== undefined && { reasoning_content: c.reasoning }),
    ...(c.calls.length > 0 && { tool_calls: c.calls.map(toolCallOf) }),
    ...(c.images.length > 0 && { images: c.images }),
  };
}

/** a piece that names the call (its id or function name) says its type */
function toolCallOf(c: ToolCallDelta): Record<string, unknown> {
  const fn = { ...(c.name !== undefined && { name: c.name }), ...(c.arguments !== undefined && { arguments: c.arguments }) };
  return {
    index: c.index,
    ...(c.id !== undefined && { id: c.id }),
    ...((c.id !== undefined || c.name !== undefined) && { type: 'function' }),
    ...((c.name !== undefined || c.arguments !== undefined) && { function: fn }),
  };
}

function event(body: unknown): string {
  return `data: ${JSON.stringify(body)}\n\n`;
}
