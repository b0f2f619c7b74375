// POST /v1/completions (legacy, protocols.md 2.1): deterministic continuations of each prompt.
import { isRecord } from '../_kit/http.ts';
import { newResponseId, optionalPositiveInt, readStopSequences, type EndpointReply, type PostEndpoint, type ReplyContext } from './endpoint.ts';
import { invalidRequest, type SimulatedError } from './errors.ts';
import type { ScenarioPlan } from './scenarios.ts';
import type { StreamEvent } from './stream.ts';
import { countTokens, decodeTokens, finishText, snippet, splitIntoChunks, withFiller, type FinishedText } from './text.ts';

const DEFAULT_MAX_TOKENS = 16;

interface CompletionUsage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
}

interface Prompt {
  text: string;
  tokens: number;
}

export const completionsEndpoint: PostEndpoint = {
  directiveText(body: unknown): string {
    if (!isRecord(body)) return '';
    const prompts = readPrompts(body.prompt);
    return Array.isArray(prompts) ? prompts.map((prompt) => prompt.text).join('\n') : '';
  },
  reply(body: unknown, context: ReplyContext): EndpointReply {
    if (!isRecord(body)) return { kind: 'error', error: invalidRequest('The request body must be a JSON object.', null) };
    if (typeof body.model !== 'string' || body.model === '') return { kind: 'error', error: invalidRequest('you must provide a model parameter', 'model') };
    const prompts = readPrompts(body.prompt);
    if (!Array.isArray(prompts)) return { kind: 'error', error: prompts };
    const n = optionalPositiveInt(body.n, 'n', 128);
    if (typeof n === 'string') return { kind: 'error', error: invalidRequest(n, 'n') };
    const maxTokens = optionalPositiveInt(body.max_tokens, 'max_tokens');
    if (typeof maxTokens === 'string') return { kind: 'error', error: invalidRequest(maxTokens, 'max_tokens') };
    const stop = readStopSequences(body.stop);
    if (typeof stop === 'string') return { kind: 'error', error: invalidRequest(stop, 'stop') };
    const stream = body.stream === true;
    if (body.stream_options !== undefined && body.stream_options !== null && !stream) {
      return { kind: 'error', error: invalidRequest("The 'stream_options' parameter is only allowed when 'stream' is enabled.", 'stream_options') };
    }

    // Choices are ordered prompt by prompt, n per prompt, like OpenAI.
    const choices: FinishedText[] = prompts.flatMap((prompt) =>
      Array.from({ length: n ?? 1 }, (_, index) => {
        const label = index === 0 ? '' : ` #${index + 1}`;
        const continuation = context.plan.replyText ?? withFiller(` Echo${label}: ${snippet(prompt.text, 60) || '(empty)'} |`, context.streamChunks);
        const finished = finishText(continuation, stop, maxTokens ?? DEFAULT_MAX_TOKENS);
        return body.echo === true ? { ...finished, text: prompt.text + finished.text } : finished;
      }),
    );
    const promptTokens = prompts.reduce((sum, prompt) => sum + prompt.tokens, 0);
    const completionTokens = choices.reduce((sum, choice) => sum + choice.tokens, 0);
    const usage = completionUsage(promptTokens, completionTokens, context.plan);
    const meta = { id: newResponseId('cmpl-'), created: context.created, model: body.model };
    if (stream) {
      const includeUsage = isRecord(body.stream_options) && body.stream_options.include_usage === true;
      return { kind: 'stream', events: streamEvents(meta, choices, includeUsage, usage, context.streamChunks) };
    }
    return {
      kind: 'json',
      body: {
        id: meta.id,
        object: 'text_completion',
        created: meta.created,
        model: meta.model,
        choices: choices.map((choice, index) => ({ text: choice.text, index, logprobs: null, finish_reason: choice.finishReason })),
        ...(usage === undefined ? {} : { usage }),
      },
    };
  },
};

/** `prompt`: string | string[] | token ids | arrays of token ids. */
function readPrompts(value: unknown): Prompt[] | SimulatedError {
  if (value === undefined) return invalidRequest("Missing required parameter: 'prompt'.", 'prompt');
  const items = typeof value === 'string' || isTokenArray(value) ? [value] : value;
  if (!Array.isArray(items) || items.length === 0) return invalidPrompt();
  const prompts: Prompt[] = [];
  for (const item of items) {
    if (typeof item === 'string') {
      prompts.push({ text: item, tokens: countTokens(item) });
      continue;
    }
    const text = isTokenArray(item) ? decodeTokens(item) : undefined;
    if (text === undefined) return invalidPrompt();
    prompts.push({ text, tokens: (item as number[]).length });
  }
  return prompts;
}

function invalidPrompt(): SimulatedError {
  return invalidRequest("Invalid 'prompt': expected a string, an array of strings, or (arrays of) token ids in the vocabulary.", 'prompt', 'invalid_type');
}

function isTokenArray(value: unknown): value is number[] {
  return Array.isArray(value) && value.length > 0 && value.every((item) => Number.isInteger(item) && (item as number) >= 0);
}

function completionUsage(promptTokens: number, completionTokens: number, plan: ScenarioPlan): CompletionUsage | undefined {
  if (plan.omitUsage) return undefined;
  const prompt = plan.usage?.promptTokens ?? promptTokens;
  const completion = plan.usage?.completionTokens ?? completionTokens;
  return { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion };
}

/** Text pieces of all choices interleaved, then an empty-text chunk with each finish_reason, then usage if asked. */
function streamEvents(
  meta: { id: string; created: number; model: string },
  choices: readonly FinishedText[],
  includeUsage: boolean,
  usage: CompletionUsage | undefined,
  streamChunks: number,
): StreamEvent[] {
  const chunk = (choice: unknown[], usageValue: CompletionUsage | null = null): string =>
    JSON.stringify({
      id: meta.id,
      object: 'text_completion',
      created: meta.created,
      model: meta.model,
      choices: choice,
      ...(includeUsage ? { usage: usageValue } : {}),
    });
  const piece = (index: number, text: string, finishReason: string | null = null): string =>
    chunk([{ text, index, logprobs: null, finish_reason: finishReason }]);

  const events: StreamEvent[] = [];
  const piecesPerChoice = choices.map((choice) => splitIntoChunks(choice.text, streamChunks));
  const longest = Math.max(0, ...piecesPerChoice.map((pieces) => pieces.length));
  for (let step = 0; step < longest; step++) {
    piecesPerChoice.forEach((pieces, index) => {
      const text = pieces[step];
      if (text !== undefined) events.push({ part: 'content', data: piece(index, text) });
    });
  }
  choices.forEach((choice, index) => events.push({ part: 'tail', data: piece(index, '', choice.finishReason) }));
  if (includeUsage && usage) events.push({ part: 'tail', data: chunk([], usage) });
  return events;
}
