// What the simulated model answers, per candidate: parts and finish reason, plus usage; derived
// only from the request and the scenario plan.
import { hashString } from '../_kit/http.ts';
import { makePng } from '../_kit/media/png.ts';
import type { ScenarioPlan } from '../_kit/scenarios.ts';
import { capOf, countTokens, finishText, snippet, textOfTokens, withFiller } from '../_kit/text.ts';
import { chooseToolCalls } from '../_kit/tools.ts';
import type { GenerateRequest } from './request.ts';
import { signCall, signsCalls } from './signature.ts';

export interface CandidateReply {
  /** the thought summary shown before the answer (`includeThoughts`); billed within `thoughtsTokenCount` */
  thought: string | undefined;
  /** text pieces or function calls (never both) */
  text: string | undefined;
  /** drawn images after the text (`responseModalities` with IMAGE), base64 */
  images: Array<{ mimeType: string; data: string }>;
  calls: Array<{ name: string; args: Record<string, unknown>; thoughtSignature?: string }>;
  finishReason: 'STOP' | 'MAX_TOKENS';
  tokens: number;
}

export interface Reply {
  candidates: CandidateReply[];
  usage: Record<string, number>;
}

const THOUGHT_TOKENS = 12;
/** What one drawn image counts as output tokens (the vendor's figure for images up to 1024×1024). */
export const IMAGE_OUTPUT_TOKENS = 1290;
/** The simulator draws small pictures: real PNGs, quick to make and to carry. */
const IMAGE_SIDE = 64;

export function buildReply(request: GenerateRequest, plan: ScenarioPlan, streamChunks: number): Reply {
  const candidates = Array.from({ length: request.candidateCount }, (_, index) => candidate(request, plan, streamChunks, index));
  const output = candidates.reduce((sum, c) => sum + c.tokens, 0);
  const thoughts = request.thinking ? THOUGHT_TOKENS : 0;
  const prompt = plan.usage?.promptTokens ?? request.promptTokens;
  const candidatesTokens = plan.usage?.completionTokens ?? output;
  const usage: Record<string, number> = { promptTokenCount: prompt, candidatesTokenCount: candidatesTokens, totalTokenCount: prompt + candidatesTokens + thoughts };
  if (thoughts > 0) usage.thoughtsTokenCount = thoughts;
  if (plan.usage?.cachedTokens) usage.cachedContentTokenCount = Math.min(plan.usage.cachedTokens, prompt);
  return { candidates, usage };
}

function candidate(request: GenerateRequest, plan: ScenarioPlan, streamChunks: number, index: number): CandidateReply {
  const label = index === 0 ? '' : ` #${index + 1}`;
  return { thought: request.includeThoughts ? thoughtOf(request, label) : undefined, ...answer(request, plan, streamChunks, index, label) };
}

/** Deterministic, like the rest of the answer: the same request always shows the same thoughts. */
function thoughtOf(request: GenerateRequest, label: string): string {
  return `Thinking${label} about: ${snippet(request.lastUserText, 40) || '(nothing)'}. Answering plainly.`;
}

function answer(request: GenerateRequest, plan: ScenarioPlan, streamChunks: number, index: number, label: string): Omit<CandidateReply, 'thought'> {
  if (plan.replyText === undefined && !request.answersTools) {
    const chosen = chooseToolCalls(request.tools, request.toolChoice, request.lastUserText, true, `${request.lastUserText}|${index}`);
    if (chosen.length > 0) {
      const calls = chosen.map((call, position) => {
        const args = JSON.parse(call.arguments) as Record<string, unknown>;
        // like the vendor: only the first call of a turn carries the signature
        return { name: call.name, args, ...(position === 0 && signsCalls(request.model) && { thoughtSignature: signCall(call.name, args) }) };
      });
      return { text: undefined, images: [], calls, finishReason: 'STOP', tokens: calls.reduce((sum, c) => sum + countTokens(c.name + JSON.stringify(c.args)), 0) };
    }
  }
  const opening = request.answersTools ? `Tool result${label}: ${snippet(request.lastUserText, 80)} |` : `Echo${label}: ${snippet(request.lastUserText, 60) || '(empty)'} |`;
  const text = plan.replyText ?? (plan.longAnswerTokens === undefined ? withFiller(opening, streamChunks) : textOfTokens(opening, plan.longAnswerTokens));
  const finished = finishText(text, request.stop, capOf(plan, request.maxTokens));
  const finishReason = finished.finishReason === 'length' ? 'MAX_TOKENS' : 'STOP';
  if (!request.imageOutput) return { text: finished.text, images: [], calls: [], finishReason, tokens: finished.tokens };
  const image = makePng(IMAGE_SIDE, IMAGE_SIDE, hashString(`${request.lastUserText}#${index}`)).toString('base64');
  return { text: finished.text, images: [{ mimeType: 'image/png', data: image }], calls: [], finishReason, tokens: finished.tokens + IMAGE_OUTPUT_TOKENS };
}
