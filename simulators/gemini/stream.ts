// Replies as the vendor sends them: one GenerateContentResponse (JSON) or, with `?alt=sse`,
// a stream of them as `data:` events with the new parts only, `finishReason` and the full usage
// on each candidate's last event, and no terminator (protocols.md §5.2, §5.3). Drawn images are
// `inlineData` parts after the text; a thought summary (`includeThoughts`) is `thought: true`
// text before everything else.
import type { ServerResponse } from 'node:http';
import { delay, startEventStream } from '../_kit/http.ts';
import { splitIntoChunks } from '../_kit/text.ts';
import { sseData } from '../../src/core/sse.ts';
import { STREAM_ERROR } from './errors.ts';
import type { CandidateReply, Reply } from './reply.ts';

interface Meta {
  responseId: string;
  modelVersion: string;
}

function imageParts(candidate: CandidateReply): Record<string, unknown>[] {
  return candidate.images.map((inlineData) => ({ inlineData }));
}

/** The thought summary streams in this many pieces at most, like Anthropic's thinking. */
const THOUGHT_PIECES = 3;

function thoughtParts(candidate: CandidateReply): Record<string, unknown>[] {
  return candidate.thought === undefined ? [] : [{ text: candidate.thought, thought: true }];
}

function answerParts(candidate: CandidateReply): Record<string, unknown>[] {
  if (candidate.text !== undefined) return [{ text: candidate.text }, ...imageParts(candidate)];
  return candidate.calls.map(({ thoughtSignature, ...call }) => ({ functionCall: call, ...(thoughtSignature && { thoughtSignature }) }));
}

function parts(candidate: CandidateReply): Record<string, unknown>[] {
  return [...thoughtParts(candidate), ...answerParts(candidate)];
}

export function responseBody(reply: Reply, meta: Meta): Record<string, unknown> {
  return {
    candidates: reply.candidates.map((c, index) => ({ content: { role: 'model', parts: parts(c) }, finishReason: c.finishReason, index })),
    usageMetadata: reply.usage,
    ...meta,
  };
}

/**
 * The stream's events: thoughts and text split into pieces, calls and images whole (an image in an
 * event of its own, after the text); candidates interleaved.
 */
export function streamBodies(reply: Reply, meta: Meta, streamChunks: number): Array<{ body: Record<string, unknown>; content: boolean }> {
  const pieces = reply.candidates.map((c) => [
    ...splitIntoChunks(c.thought ?? '', THOUGHT_PIECES).map((text) => [{ text, thought: true }]),
    ...(c.text === undefined ? [answerParts(c)] : [...splitIntoChunks(c.text, streamChunks).map((text) => [{ text }]), ...imageParts(c).map((part) => [part])]),
  ]);
  const longest = Math.max(...pieces.map((p) => Math.max(p.length, 1)));
  const out: Array<{ body: Record<string, unknown>; content: boolean }> = [];
  const running = { promptTokenCount: reply.usage.promptTokenCount!, totalTokenCount: reply.usage.promptTokenCount! };
  for (let step = 0; step < longest; step++) {
    const candidates = reply.candidates.flatMap((c, index) => {
      const list = pieces[index]!;
      const last = step === Math.max(list.length, 1) - 1;
      if (step >= Math.max(list.length, 1)) return [];
      return [{ content: { role: 'model', parts: list[step] ?? [{ text: '' }] }, ...(last && { finishReason: c.finishReason }), index }];
    });
    const final = step === longest - 1;
    out.push({ body: { candidates, usageMetadata: final ? reply.usage : running, ...meta }, content: true });
  }
  return out;
}

export interface Playback {
  chunkDelayMs: number;
  cutAfterChunks?: number;
  streamErrorAfterChunks?: number;
  malformedEvent: boolean;
  headers: Record<string, string>;
  signal: AbortSignal;
}

export async function playStream(res: ServerResponse, events: ReadonlyArray<{ body: Record<string, unknown>; content: boolean }>, playback: Playback): Promise<void> {
  const texts: string[] = [];
  let sent = 0;
  let cut = false;
  for (const event of events) {
    if (sent === playback.cutAfterChunks) {
      cut = true;
      break;
    }
    if (sent === playback.streamErrorAfterChunks) {
      texts.push(sseData(STREAM_ERROR));
      break;
    }
    texts.push(sseData(JSON.stringify(event.body)));
    sent++;
    if (playback.malformedEvent && sent === 1) texts.push(sseData('{not json'));
  }
  startEventStream(res, playback.headers);
  for (let i = 0; i < texts.length; i++) {
    if (i > 0) await delay(playback.chunkDelayMs, playback.signal);
    if (res.destroyed) return;
    if (cut && i === texts.length - 1) await new Promise<void>((resolve) => res.write(texts[i]!, () => resolve()));
    else res.write(texts[i]!);
  }
  if (cut) res.destroy();
  else res.end();
}
