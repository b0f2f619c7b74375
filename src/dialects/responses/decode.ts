import type { CatalogueModel } from '../../core/contracts/catalogue-model.ts';
import type { Decoded } from '../../core/contracts/dialect.ts';
import type { StoredResponses } from '../../core/contracts/stored-responses.ts';
import type { ChatCall } from '../../core/contracts/vendor-codec.ts';
import { invalidRequest } from '../../core/errors.ts';
import { newId } from '../../core/ids.ts';
import type { ChatOutput } from '../../core/ir/output.ts';
import { paidServiceTier } from '../../core/paid-features.ts';
import { PromptEstimate } from '../../core/tokens/prompt-estimate.ts';
import { countChatPromptTokens } from '../../core/tokens/token-counter.ts';
import { continuesStored, inputItems, priorItems, turnOf } from './conversation.ts';
import { convertRequest } from './convert-request.ts';
import { responsesOutput } from './output.ts';
import { requestEcho } from './response-object.ts';

export interface DecodedResponses extends Decoded<ChatCall> {
  output: ChatOutput;
}

/**
 * `POST /v1/responses` → a chat call in the IR and the Responses encoder for its answer: the
 * pipeline serves it through any family's chat codec like a chat request. Its cost's upper bound
 * is the converted prompt counted locally plus the output cap (the client's, else the allowance).
 * `stored` holds the responses it refers to (`previous_response_id`, item references) and keeps its answer.
 */
export function decodeResponses(body: Record<string, unknown>, defaultMaxOutputTokens: number, model?: CatalogueModel, bodyBytes = Number.NaN, stored?: StoredResponses): DecodedResponses {
  const stream = body.stream === true;
  const input = inputItems(body, stored);
  const prior = priorItems(body, stored);
  if (input.length === 0 && prior.length === 0) throw invalidRequest("Missing required parameter: 'input'.", 'input', 'missing_required_parameter');
  const { ir, warnings } = convertRequest(body, prior, input);
  if (stream) ir.stream = true;
  const tier = model && paidServiceTier(model, body.service_tier, 'service_tier');
  const clientCap = typeof body.max_output_tokens === 'number' ? body.max_output_tokens : undefined;
  const modelMax = model?.maxOutputTokens ?? undefined;
  const maxOutput = clientCap ?? (modelMax === undefined ? defaultMaxOutputTokens : Math.min(defaultMaxOutputTokens, modelMax));
  // named by the gateway, not after the vendor's id: a stored id must be unique whatever the upstream sends
  const responseId = newId('resp');
  // kept once complete (`store`, default true), where the gateway keeps responses
  const keep = stored && body.store !== false ? (response: Record<string, unknown>) => stored.save(turnOf(response, body, input)) : undefined;
  const call: ChatCall = {
    body: ir,
    stream,
    clientWantsUsage: false,
    maxOutputTokens: maxOutput,
    created: Math.floor(Date.now() / 1000),
    ...(warnings.length > 0 && { warnings }),
    // relayed as it came to a provider that serves the Responses API (a kept answer named by the
    // gateway all the same); one that continues a stored conversation goes through the IR, which alone
    // knows the earlier turns whichever provider served them
    ...(!continuesStored(body) && { native: { wire: 'openai-responses' as const, body, ...(keep && { keep: { id: responseId, save: keep } }) } }),
  };
  const decoded: DecodedResponses = {
    model: ir.model,
    stream,
    call,
    output: responsesOutput(requestEcho(body), keep, responseId, ir.include_reasoning === true),
    estimate: new PromptEstimate(ir as unknown as Record<string, unknown>, countChatPromptTokens, maxOutput, bodyBytes),
  };
  if (tier !== undefined) decoded.estimate.paid = { serviceTier: tier };
  if (clientCap === undefined && modelMax !== undefined && modelMax > maxOutput) {
    decoded.openOutputCap = { modelMaxTokens: modelMax, choices: 1, grant: (tokens) => (call.maxOutputTokens = tokens) };
  }
  return decoded;
}
