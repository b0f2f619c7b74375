// POST /v1/chat/completions: deterministic replies shaped exactly like protocols.md 1.5 (JSON)
// and 1.6 (SSE chunks).
import { chatDirectiveText, lastUserText, readChatRequest, type ChatRequest } from './chat-request.ts';
import { newResponseId, SYSTEM_FINGERPRINT, type EndpointReply, type PostEndpoint, type ReplyContext } from './endpoint.ts';
import { hashString } from '../_kit/http.ts';
import { makePng } from '../_kit/media/png.ts';
import { reasoningFor, thinksAloud } from './reasoning.ts';
import type { ScenarioPlan } from './scenarios.ts';
import type { StreamEvent } from './stream.ts';
import { capOf, countTokens, finishText, snippet, splitBySize, splitIntoChunks, textOfTokens, withFiller } from './text.ts';
import { chooseToolCalls, type SimulatedToolCall } from './tool-calls.ts';

/** `reasoning`: what a DeepSeek-like model thinks aloud first (`reasoning_content`), counted in `tokens` */
type ChoiceOutput = (
  | { kind: 'text'; text: string; finishReason: 'stop' | 'length'; tokens: number; images?: string[] }
  | { kind: 'tools'; calls: SimulatedToolCall[]; tokens: number }
) & { reasoning?: { text: string; tokens: number } };

export interface ChatUsage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  prompt_tokens_details: { cached_tokens: number; audio_tokens: number };
  completion_tokens_details: {
    reasoning_tokens: number;
    audio_tokens: number;
    accepted_prediction_tokens: number;
    rejected_prediction_tokens: number;
  };
}

// What one generated image costs in output tokens (the figure image-output chat models report).
export const IMAGE_OUTPUT_TOKENS = 1290;

// Tool-call arguments are streamed in fragments of this many characters.
const ARGUMENT_FRAGMENT_CHARS = 8;

export const chatCompletionsEndpoint: PostEndpoint = {
  directiveText: chatDirectiveText,
  reply(body: unknown, context: ReplyContext): EndpointReply {
    const request = readChatRequest(body);
    if ('status' in request) return { kind: 'error', error: request };
    const choices = Array.from({ length: request.n }, (_, index) => generateChoice(request, index, context));
    const completionTokens = choices.reduce((sum, choice) => sum + choice.tokens, 0);
    const reasoningTokens = choices.reduce((sum, choice) => sum + (choice.reasoning?.tokens ?? 0), 0);
    const usage = chatUsage(request.promptTokens, completionTokens, context.plan, request.audioOutput, reasoningTokens);
    const meta = {
      id: newResponseId('chatcmpl-'),
      created: context.created,
      model: request.model,
      serviceTier: request.serviceTier,
    };
    if (request.stream) return { kind: 'stream', events: streamEvents(meta, choices, request.includeUsage ? usage : null, request.includeUsage, context) };
    return { kind: 'json', body: completionBody(meta, choices, usage) };
  },
};

interface ResponseMeta {
  id: string;
  created: number;
  model: string;
  serviceTier: string;
}

function generateChoice(request: ChatRequest, index: number, context: ReplyContext): ChoiceOutput {
  const label = index === 0 ? '' : ` #${index + 1}`;
  const userText = lastUserText(request.messages);
  if (!thinksAloud(request.model)) return answerChoice(request, index, context, label, userText, 0);
  // the reasoning counts against the output cap, as DeepSeek's max_tokens does
  const reasoning = reasoningFor(userText, label);
  const answer = answerChoice(request, index, context, label, userText, reasoning.tokens);
  return { ...answer, tokens: answer.tokens + reasoning.tokens, reasoning };
}

function answerChoice(request: ChatRequest, index: number, context: ReplyContext, label: string, userText: string, spent: number): ChoiceOutput {
  const last = request.messages.at(-1);
  let text: string;
  if (context.plan.replyText !== undefined) {
    text = context.plan.replyText;
  } else if (last?.role === 'tool') {
    // Closing the tool loop: answer in text and show that the tool result arrived.
    text = withFiller(`Tool result${label}: ${last.text} |`, context.streamChunks);
  } else {
    const calls = chooseToolCalls(request.tools, request.toolChoice, userText, request.parallelToolCalls, `${userText}|${request.messages.length}|${index}`);
    if (calls.length > 0) {
      const tokens = calls.reduce((sum, call) => sum + countTokens(call.name) + countTokens(call.arguments), 0);
      return { kind: 'tools', calls, tokens };
    }
    const opening = `Echo${label}: ${snippet(userText, 60) || '(empty)'} |`;
    text = context.plan.longAnswerTokens === undefined ? withFiller(opening, context.streamChunks) : textOfTokens(opening, context.plan.longAnswerTokens);
  }
  const cap = capOf(context.plan, request.maxTokens);
  const finished = finishText(text, request.stop, cap === undefined ? undefined : Math.max(0, cap - spent));
  if (request.imageOutput) {
    const image = `data:image/png;base64,${makePng(64, 64, hashString(`${userText}#${index}`)).toString('base64')}`;
    return { kind: 'text', text: finished.text, finishReason: finished.finishReason, tokens: finished.tokens + IMAGE_OUTPUT_TOKENS, images: [image] };
  }
  return { kind: 'text', text: finished.text, finishReason: finished.finishReason, tokens: finished.tokens };
}

function chatUsage(promptTokens: number, completionTokens: number, plan: ScenarioPlan, audioOutput = false, reasoningTokens = 0): ChatUsage | undefined {
  if (plan.omitUsage) return undefined;
  const prompt = plan.usage?.promptTokens ?? promptTokens;
  const completion = plan.usage?.completionTokens ?? completionTokens;
  return {
    prompt_tokens: prompt,
    completion_tokens: completion,
    total_tokens: prompt + completion,
    prompt_tokens_details: { cached_tokens: plan.usage?.cachedTokens ?? 0, audio_tokens: 0 },
    completion_tokens_details: { reasoning_tokens: reasoningTokens, audio_tokens: audioOutput ? completion : 0, accepted_prediction_tokens: 0, rejected_prediction_tokens: 0 },
  };
}

function completionBody(meta: ResponseMeta, choices: readonly ChoiceOutput[], usage: ChatUsage | undefined): unknown {
  return {
    id: meta.id,
    object: 'chat.completion',
    created: meta.created,
    model: meta.model,
    choices: choices.map((choice, index) => ({
      index,
      message: {
        ...(choice.kind === 'text'
          ? { role: 'assistant', content: choice.text, refusal: null, annotations: [], ...(choice.images && { images: choice.images.map(imagePart) }) }
          : {
              role: 'assistant',
              content: null,
              refusal: null,
              annotations: [],
              tool_calls: choice.calls.map((call) => ({ id: call.id, type: 'function', function: { name: call.name, arguments: call.arguments } })),
            }),
        ...(choice.reasoning && { reasoning_content: choice.reasoning.text }),
      },
      logprobs: null,
      finish_reason: choice.kind === 'text' ? choice.finishReason : 'tool_calls',
    })),
    ...(usage === undefined ? {} : { usage }),
    service_tier: meta.serviceTier,
    system_fingerprint: SYSTEM_FINGERPRINT,
  };
}

/**
 * Role chunks for every choice, then the content deltas of all choices interleaved round-robin,
 * then one finish chunk per choice, then (only when asked) the usage chunk with `choices: []`.
 */
function streamEvents(
  meta: ResponseMeta,
  choices: readonly ChoiceOutput[],
  usage: ChatUsage | null | undefined,
  includeUsage: boolean,
  context: ReplyContext,
): StreamEvent[] {
  const chunk = (choice: unknown[], usageValue: ChatUsage | null = null): string =>
    JSON.stringify({
      id: meta.id,
      object: 'chat.completion.chunk',
      created: meta.created,
      model: meta.model,
      service_tier: meta.serviceTier,
      system_fingerprint: SYSTEM_FINGERPRINT,
      choices: choice,
      ...(includeUsage ? { usage: usageValue } : {}),
    });
  const delta = (index: number, value: unknown, finishReason: string | null = null): string =>
    chunk([{ index, delta: value, logprobs: null, finish_reason: finishReason }]);

  const events: StreamEvent[] = choices.map((_, index) => ({ part: 'head', data: delta(index, { role: 'assistant', content: '' }) }));
  const deltasPerChoice = choices.map((choice) => contentDeltas(choice, context.streamChunks));
  const longest = Math.max(0, ...deltasPerChoice.map((deltas) => deltas.length));
  for (let step = 0; step < longest; step++) {
    deltasPerChoice.forEach((deltas, index) => {
      const value = deltas[step];
      if (value !== undefined) events.push({ part: 'content', data: delta(index, value) });
    });
  }
  choices.forEach((choice, index) => {
    events.push({ part: 'tail', data: delta(index, {}, choice.kind === 'text' ? choice.finishReason : 'tool_calls') });
  });
  if (includeUsage && usage) events.push({ part: 'tail', data: chunk([], usage) });
  return events;
}

/** The `delta` objects after the role chunk: reasoning pieces, then text pieces or tool-call fragments (id/name first). */
function contentDeltas(choice: ChoiceOutput, streamChunks: number): unknown[] {
  const reasoning = splitIntoChunks(choice.reasoning?.text ?? '', streamChunks).map((reasoning_content) => ({ reasoning_content }));
  return [...reasoning, ...answerDeltas(choice, streamChunks)];
}

function answerDeltas(choice: ChoiceOutput, streamChunks: number): unknown[] {
  if (choice.kind === 'text') {
    const text = splitIntoChunks(choice.text, streamChunks).map((content) => ({ content }));
    return choice.images ? [...text, { images: choice.images.map(imagePart) }] : text;
  }
  return choice.calls.flatMap((call, index) => [
    { tool_calls: [{ index, id: call.id, type: 'function', function: { name: call.name, arguments: '' } }] },
    ...splitBySize(call.arguments, ARGUMENT_FRAGMENT_CHARS).map((piece) => ({ tool_calls: [{ index, function: { arguments: piece } }] })),
  ]);
}

/** The shape image-output chat servers use (and the gateway returns): a data URL in an image_url part. */
function imagePart(url: string) {
  return { type: 'image_url', image_url: { url } };
}
