import type { GatewayError } from '../../core/errors.ts';
import type { FinishReason, IrUsage } from '../../core/ir/chat.ts';
import type { ChatStreamEncoder } from '../../core/ir/output.ts';
import type { IrStreamFrame } from '../../core/ir/stream.ts';
import { finishReasonOf, functionCallPart, imagePart, usageMetadata } from './encode-generate.ts';
import { googleErrorDialect } from './error-envelope.ts';

type Json = Record<string, unknown>;

/** `sse`: `data:` events (`?alt=sse`); `array`: one JSON array written piece by piece (no `alt`). */
export type GoogleStreamForm = 'sse' | 'array';

/**
 * IR parts → `streamGenerateContent` chunks, each a whole `GenerateContentResponse`: a frame's
 * text and images as one chunk per choice (with `thoughts`, its reasoning text as `thought: true`
 * parts, as Gemini shows them when asked); function calls, which Google sends whole, gathered
 * and written with the finish reasons and the final `usageMetadata` in the last chunk once the
 * upstream ended properly. Every chunk before it carries the usage the vendor reported so far,
 * as Gemini's running totals do, when the vendor reported any (an OpenAI-family stream: only at its end).
 */
export class GoogleStreamEncoder implements ChatStreamEncoder {
  private readonly form: GoogleStreamForm;
  private readonly thoughts: boolean;
  private meta = { responseId: 'gen-gateway', modelVersion: '' };
  private written = false;
  private readonly choices = new Map<number, { finish: FinishReason | null; raw: string | null; calls: Map<number, { id: string; name: string; args: string }> }>();

  constructor(form: GoogleStreamForm, thoughts = false) {
    this.form = form;
    this.thoughts = thoughts;
  }

  /** the JSON array is sent as Google sends it, as JSON; events keep the stream's default */
  get contentType(): string | undefined {
    return this.form === 'array' ? 'application/json; charset=utf-8' : undefined;
  }

  frame(parts: IrStreamFrame, usage?: () => IrUsage | null): string {
    const pieces = new Map<number, Json[]>();
    const add = (choice: number, part: Json) => {
      const list = pieces.get(choice) ?? [];
      const last = list.at(-1);
      // a thought and the answer's text are separate parts, however they follow each other
      if (typeof part.text === 'string' && typeof last?.text === 'string' && part.thought === last.thought) last.text += part.text;
      else list.push(part);
      pieces.set(choice, list);
    };
    for (const part of parts) {
      switch (part.type) {
        case 'start':
          this.meta = { responseId: part.id, modelVersion: part.model };
          break;
        case 'role':
          this.choice(part.choice);
          break;
        case 'text-delta':
        case 'refusal-delta':
          if (part.text !== '') add(part.choice, { text: part.text });
          break;
        case 'image':
          add(part.choice, imagePart(part.image));
          break;
        case 'reasoning-delta':
          if (this.thoughts && part.text !== '') add(part.choice, { text: part.text, thought: true });
          break;
        case 'tool-call-start': {
          const calls = this.choice(part.choice).calls;
          const call = calls.get(part.index) ?? { id: '', name: '', args: '' };
          if (part.id) call.id = part.id;
          if (part.name) call.name = part.name;
          calls.set(part.index, call);
          break;
        }
        case 'tool-call-delta': {
          const calls = this.choice(part.choice).calls;
          const call = calls.get(part.index) ?? { id: '', name: '', args: '' };
          call.args += part.argumentsDelta;
          calls.set(part.index, call);
          break;
        }
        case 'finish': {
          const choice = this.choice(part.choice);
          choice.finish = part.reason;
          choice.raw = part.raw;
          break;
        }
        default: {
          const unknown: never = part;
          throw new Error(`unknown stream part ${JSON.stringify(unknown)}`);
        }
      }
    }
    if (pieces.size === 0) return '';
    const candidates = [...pieces].map(([index, list]) => ({ content: { role: 'model', parts: list }, index }));
    const running = usage?.();
    return this.chunk({ candidates, ...(running && { usageMetadata: usageMetadata(running) }), ...this.meta });
  }

  end(usage: IrUsage | null): string {
    if (this.choices.size === 0) this.choice(0);
    const candidates = [...this.choices].map(([index, choice]) => {
      const calls = [...choice.calls.entries()].sort(([a], [b]) => a - b).map(([, call]) => functionCallPart({ id: call.id, type: 'function', function: { name: call.name, arguments: call.args } }));
      return { content: { role: 'model', parts: calls.length > 0 ? calls : [{ text: '' }] }, finishReason: finishReasonOf(choice.finish, choice.raw), index };
    });
    const out = this.chunk({ candidates, usageMetadata: usageMetadata(usage), ...this.meta });
    return this.form === 'array' ? `${out}]` : out;
  }

  error(error: GatewayError): string {
    const out = this.chunk(googleErrorDialect.render(error) as Json);
    return this.form === 'array' ? `${out}]` : out;
  }

  private choice(index: number) {
    let choice = this.choices.get(index);
    if (!choice) this.choices.set(index, (choice = { finish: null, raw: null, calls: new Map() }));
    return choice;
  }

  private chunk(body: Json): string {
    const json = JSON.stringify(body);
    if (this.form === 'sse') return `data: ${json}\r\n\r\n`;
    const lead = this.written ? ',\r\n' : '[';
    this.written = true;
    return lead + json;
  }
}
