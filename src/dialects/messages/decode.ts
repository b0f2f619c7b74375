import { invalidRequest } from '../../core/errors.ts';
import type { ChatCall, CountTokensCall, MessagesCall } from '../../core/contracts/vendor-codec.ts';
import type { Decoded } from '../../core/contracts/dialect.ts';
import { convertRequest } from './convert-request.ts';
import { UNSIGNED } from './encode.ts';
import { PromptEstimate } from '../../core/tokens/prompt-estimate.ts';
import { countMessagesTokens } from './count-tokens.ts';
import { paidMessagesFeatures } from './paid-features.ts';
import type { CatalogueModel } from '../../core/contracts/catalogue-model.ts';

type Body = Record<string, unknown>;
type Headers = Readonly<Record<string, string | string[] | undefined>>;

/**
 * The native headers: the API version (the spec's `native-version`, or its vendor spelling that
 * the official clients send) is required; feature flags are passed on to a native upstream.
 */
export function nativeHeaders(headers: Headers): { nativeVersion: string; nativeBeta: string | undefined } {
  const version = header(headers, 'native-version') ?? header(headers, 'anthropic-version');
  if (!version) throw invalidRequest('The native-version header is required (for example "native-version: 2023-06-01").', 'native-version');
  return { nativeVersion: version, nativeBeta: header(headers, 'anthropic-beta') };
}

function header(headers: Headers, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value.join(',') : value || undefined;
}

export function decodeMessages(body: Body, headers: { nativeVersion: string; nativeBeta: string | undefined }, bodyBytes = Number.NaN, model?: CatalogueModel): Decoded<MessagesCall> {
  // the messages format has no image output (an assistant turn holds text and tool uses only):
  // images are asked for on /v1/chat/completions, never silently dropped here
  if (body.modality === 'image') {
    throw invalidRequest('modality "image" is not available on /v1/messages: the messages format cannot carry images in an answer; use /v1/chat/completions.', 'modality');
  }
  // features billed beyond the tokens (server tools, tiers, long context): refused unless priced, else reserved for
  const paid = model && paidMessagesFeatures(body, headers.nativeBeta, model);
  dropUnsignedThinking(body);
  const stream = body.stream === true;
  const maxTokens = body.max_tokens as number;
  const created = Math.floor(Date.now() / 1000);
  let chat: ChatCall | undefined;
  const decoded: Decoded<MessagesCall> = {
    model: body.model as string,
    stream,
    call: {
      body,
      stream,
      ...headers,
      toChat() {
        if (!chat) {
          const { ir, warnings } = convertRequest(body);
          if (stream) ir.stream = true;
          chat = { body: ir, stream, clientWantsUsage: false, maxOutputTokens: maxTokens, created, ...(warnings.length > 0 && { warnings }) };
        }
        return chat;
      },
    },
    // counted after admission, off the event loop when large (runOperation settles it)
    estimate: new PromptEstimate(body, countMessagesTokens, maxTokens, bodyBytes),
  };
  if (paid) decoded.estimate.paid = paid;
  return decoded;
}

/**
 * Thinking blocks the gateway wrote for another family's reasoning carry no signature (encode.ts):
 * sent back, they would be refused by Anthropic (which checks them) and mean nothing to any other
 * vendor, so they are left out of the conversation before it goes anywhere.
 */
export function dropUnsignedThinking(body: Body): void {
  const messages = body.messages as Array<{ role?: unknown; content?: unknown }>;
  for (const [i, message] of messages.entries()) {
    if (message.role !== 'assistant' || !Array.isArray(message.content)) continue;
    const blocks = message.content as Array<{ type?: unknown; signature?: unknown }>;
    if (!blocks.some(unsigned)) continue;
    messages[i] = { ...message, content: blocks.filter((block) => !unsigned(block)) };
  }
}

const unsigned = (block: { type?: unknown; signature?: unknown }) => block.type === 'thinking' && block.signature === UNSIGNED;

export function decodeCountTokens(body: Body, headers: { nativeVersion: string; nativeBeta: string | undefined }): CountTokensCall {
  return { body, ...headers };
}
