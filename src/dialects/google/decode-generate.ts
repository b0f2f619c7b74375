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
  const form = alt === 'sse' ? 'sse' : 'array';
  // a Gemini provider gets the request as it came (the fast path); but for a JSON-array stream, which only the IR path writes
  const relayable = !stream || form === 'sse';
  let converted: ReturnType<typeof convertRequest> | undefined;
  let refusal: unknown;
  try {
    converted = convertRequest(body, model);
  } catch (error) {
    // what the IR cannot carry (Google's own tools, cached contents…) is refused only if a family other than Gemini's is to serve it
    if (!relayable) throw error;
    refusal = error;
  }
  if (stream && converted) converted.ir.stream = true;
  const config = (body.generationConfig ?? {}) as Body;
  const modelMax = catalogued.maxOutputTokens ?? undefined;
  const clientCap = typeof config.maxOutputTokens === 'number' ? config.maxOutputTokens : undefined;
  const maxOutput = clientCap ?? (modelMax === undefined ? defaultMaxOutputTokens : Math.min(defaultMaxOutputTokens, modelMax));
  const n = typeof config.candidateCount === 'number' ? config.candidateCount : 1;
  const warnings = converted?.warnings ?? [];
  const call: ChatCall = {
    get body() {
      if (!converted) throw refusal;
      return converted.ir;
    },
    stream,
    clientWantsUsage: true,
    maxOutputTokens: maxOutput,
    created: Math.floor(Date.now() / 1000),
    ...(warnings.length > 0 && { warnings }),
    ...(relayable && { native: { wire: 'gemini' as const, body } }),
  };
  const decoded: Decoded<ChatCall> = {
    model,
    call,
    stream,
    // thought parts only when asked for, as Gemini shows them (a family may reason without being asked to show it)
    output: googleOutput(form, converted?.ir.include_reasoning === true),
    estimate: new PromptEstimate(body, countGeminiTokens, maxOutput * n, bodyBytes),
  };
  if (clientCap === undefined && modelMax !== undefined && modelMax > maxOutput) {
    decoded.openOutputCap = { modelMaxTokens: modelMax, choices: n, grant: (tokens) => (call.maxOutputTokens = tokens) };
  }
  return decoded;
}
