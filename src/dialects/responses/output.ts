import type { ChatOutput } from '../../core/ir/output.ts';
import { encodeResponse } from './encode.ts';
import { ResponsesStreamEncoder } from './encode-stream.ts';
import type { RequestEcho } from './response-object.ts';

/**
 * The Responses wire as an IR output, one per request: its `response` objects repeat the request's
 * settings; `onFinal` gets the complete one (to store it); `withReasoning` writes the model's
 * reasoning text as a reasoning item (the request asked for a summary).
 */
export function responsesOutput(echo: RequestEcho, onFinal?: (response: Record<string, unknown>) => void, responseId?: string, withReasoning = false): ChatOutput {
  return {
    wire: 'openai-responses',
    contentType: 'application/json',
    encodeCompletion: (completion) => encodeResponse(completion, echo, onFinal, responseId, withReasoning),
    streamEncoder: () => new ResponsesStreamEncoder(echo, onFinal, responseId, withReasoning),
  };
}
