import type { CatalogueModel } from '../../core/contracts/catalogue-model.ts';
import type { Decoded } from '../../core/contracts/dialect.ts';
import type { ChatCall } from '../../core/contracts/vendor-codec.ts';
import { PromptEstimate } from '../../core/tokens/prompt-estimate.ts';
import { convertRequest } from './convert-request.ts';
import { countGeminiTokens } from './count-tokens.ts';
import { googleOutput } from './output.ts';

type Body = Record<string, unknown>;

/**
 * `generateContent` / `streamGenerateContent` → a chat call in the IR, served by every family
 * through its chat codec and answered in Google's shape (a Gemini provider relays the client's
 * own request instead: `native`). The output cap is the client's
 * `maxOutputTokens`, else the gateway's allowance (never above the model's maximum); the prompt
 * is counted after admission, off the event loop when large.
 */
export function decodeGenerate(body: Body, model: string, stream: boolean, alt: unknown, bodyBytes: number, catalogued: CatalogueModel, defaultMaxOutputTokens: number): Decoded<ChatCall> {
  const { ir, warnings } = convertRequest(body, model);
  if (stream) ir.stream = true;
  const modelMax = catalogued.maxOutputTokens ?? undefined;
  const clientCap = ir.max_completion_tokens ?? undefined;
  const maxOutput = clientCap ?? (modelMax === undefined ? defaultMaxOutputTokens : Math.min(defaultMaxOutputTokens, modelMax));
  const n = ir.n ?? 1;
  const form = alt === 'sse' ? 'sse' : 'array';
  const call: ChatCall = { body: ir, stream, clientWantsUsage: true, maxOutputTokens: maxOutput, created: Math.floor(Date.now() / 1000), ...(warnings.length > 0 && { warnings }) };
  // a Gemini provider gets the request as it came (the fast path); but for a JSON-array stream, which only the IR path writes
  if (!stream || form === 'sse') call.native = { wire: 'gemini', body };
  const decoded: Decoded<ChatCall> = {
    model,
    call,
    stream,
    output: googleOutput(form),
    estimate: new PromptEstimate(body, countGeminiTokens, maxOutput * n, bodyBytes),
  };
  if (clientCap === undefined && modelMax !== undefined && modelMax > maxOutput) {
    decoded.openOutputCap = { modelMaxTokens: modelMax, choices: n, grant: (tokens) => (call.maxOutputTokens = tokens) };
  }
  return decoded;
}
