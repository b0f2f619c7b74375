import type { IrCompletion } from '../../core/ir/chat.ts';
import { answerIds, functionCallItem, messageItem, outputTextPart, prefixed, reasoningItem, responseObject, statusOf, type RequestEcho } from './response-object.ts';

/**
 * IR completion → the `response` object: the first choice's reasoning text as a reasoning item
 * (when `withReasoning`: the client asked for a summary), its text as a message item, then its
 * function calls; named `responseId` (else after the vendor's id).
 */
export function encodeResponse(completion: IrCompletion, echo: RequestEcho, onFinal?: (response: Record<string, unknown>) => void, responseId?: string, withReasoning = false): string {
  const ids = answerIds(responseId ?? completion.id);
  const choice = completion.choices[0];
  const finish = choice?.finish_reason ?? null;
  const status = statusOf(finish);
  const output: Record<string, unknown>[] = [];
  const message = choice?.message;
  if (withReasoning && message?.reasoning) output.push(reasoningItem(ids.reasoning, message.reasoning));
  const content = [];
  if (message?.content) content.push(outputTextPart(message.content));
  const refusal = message?.refusal;
  if (refusal) content.push({ type: 'refusal', refusal });
  if (content.length > 0) output.push(messageItem(ids.message, status, content));
  for (const call of message?.tool_calls ?? []) output.push(functionCallItem(prefixed('fc_', call.id), call.id, call.function.name, call.function.arguments, 'completed'));
  const meta = { id: ids.response, createdAt: completion.created, model: completion.model };
  const response = responseObject(meta, echo, status, output, finish, completion.usage);
  onFinal?.(response);
  return JSON.stringify(response);
}
