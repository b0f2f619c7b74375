// A Responses reply as the vendor streams it: typed events, each an `event:` line equal to its
// `type` and a `data:` line carrying a `sequence_number` that counts from 0; no `[DONE]`. Plus the
// stream scenarios: cut (the connection drops after N content events), in-band error (`error`
// then `response.failed`), one malformed event.
import type { ServerResponse } from 'node:http';
import { sseNamed } from '../../src/core/sse.ts';
import { delay, startEventStream } from '../_kit/http.ts';
import {
  finalStatus,
  functionCallItem,
  messageItem,
  outputItems,
  outputText,
  reasoningItem,
  responseBody,
  type Generated,
  type ResponseMeta,
  type ResponseUsage,
} from './responses.ts';
import { splitBySize, splitIntoChunks } from './text.ts';

export interface ResponseEvent {
  type: string;
  body: Record<string, unknown>;
  /** a text, summary or argument delta: what the cut and error scenarios count */
  content: boolean;
}

export interface ResponsesPlayback {
  chunkDelayMs: number;
  cutAfterChunks?: number;
  streamErrorAfterChunks?: number;
  malformedEvent: boolean;
  headers: Record<string, string>;
  signal: AbortSignal;
}

// Function-call arguments are streamed in fragments of this many characters.
const ARGUMENT_FRAGMENT_CHARS = 8;
const STREAM_ERROR = { code: 'server_error', message: 'The server had an error while processing your request (simulated).' };

export function responseEvents(meta: ResponseMeta, generated: Generated, usage: ResponseUsage | null, streamChunks: number): ResponseEvent[] {
  const events: ResponseEvent[] = [];
  const push = (type: string, body: Record<string, unknown>, content = false) => void events.push({ type, body, content });
  const inProgress = responseBody(meta, 'in_progress', [], null);
  push('response.created', { response: inProgress });
  push('response.in_progress', { response: inProgress });
  let outputIndex = 0;
  const status = finalStatus(generated);

  if (generated.reasoning) {
    const { reasoning } = generated;
    const item_id = reasoning.id;
    const output_index = outputIndex++;
    push('response.output_item.added', { output_index, item: { ...reasoningItem({ ...reasoning, summary: [] }) } });
    reasoning.summary.forEach((text, summary_index) => {
      const at = { item_id, output_index, summary_index };
      push('response.reasoning_summary_part.added', { ...at, part: { type: 'summary_text', text: '' } });
      for (const delta of splitIntoChunks(text, streamChunks)) push('response.reasoning_summary_text.delta', { ...at, delta }, true);
      push('response.reasoning_summary_text.done', { ...at, text });
      push('response.reasoning_summary_part.done', { ...at, part: { type: 'summary_text', text } });
    });
    push('response.output_item.done', { output_index, item: reasoningItem(reasoning) });
  }

  if (generated.message) {
    const { message } = generated;
    const at = { item_id: message.id, output_index: outputIndex++ };
    push('response.output_item.added', { output_index: at.output_index, item: messageItem(message, 'in_progress', []) });
    push('response.content_part.added', { ...at, content_index: 0, part: outputText('') });
    for (const delta of splitIntoChunks(message.text, streamChunks)) push('response.output_text.delta', { ...at, content_index: 0, delta, logprobs: [] }, true);
    push('response.output_text.done', { ...at, content_index: 0, text: message.text, logprobs: [] });
    push('response.content_part.done', { ...at, content_index: 0, part: outputText(message.text) });
    push('response.output_item.done', { output_index: at.output_index, item: messageItem(message, status) });
  }

  for (const call of generated.calls) {
    const at = { item_id: call.id, output_index: outputIndex++ };
    push('response.output_item.added', { output_index: at.output_index, item: functionCallItem(call, 'in_progress', '') });
    for (const delta of splitBySize(call.arguments, ARGUMENT_FRAGMENT_CHARS)) push('response.function_call_arguments.delta', { ...at, delta }, true);
    push('response.function_call_arguments.done', { ...at, arguments: call.arguments });
    push('response.output_item.done', { output_index: at.output_index, item: functionCallItem(call, 'completed') });
  }

  push(status === 'incomplete' ? 'response.incomplete' : 'response.completed', { response: responseBody(meta, status, outputItems(generated), usage) });
  return events;
}

/** The in-band failure: `error`, then the terminal `response.failed` with what was produced so far. */
function failureEvents(meta: ResponseMeta): ResponseEvent[] {
  return [
    { type: 'error', body: { ...STREAM_ERROR, param: null }, content: false },
    { type: 'response.failed', body: { response: responseBody(meta, 'failed', [], null, STREAM_ERROR) }, content: false },
  ];
}

export async function playResponseEvents(res: ServerResponse, meta: ResponseMeta, events: readonly ResponseEvent[], playback: ResponsesPlayback): Promise<void> {
  const frames = scheduleFrames(meta, events, playback);
  const cut = playback.cutAfterChunks !== undefined && frames.cut;
  startEventStream(res, playback.headers);
  for (let i = 0; i < frames.texts.length; i++) {
    if (i > 0) await delay(playback.chunkDelayMs, playback.signal);
    if (res.destroyed) return;
    if (cut && i === frames.texts.length - 1) {
      // Destroy only once the last event has reached the socket, so the client sees exactly N deltas.
      await new Promise<void>((resolve) => res.write(frames.texts[i]!, () => resolve()));
    } else {
      res.write(frames.texts[i]!);
    }
  }
  if (cut) res.destroy();
  else res.end();
}

/** The exact SSE frames to send, numbered in order, after the cut, error and malformed scenarios. */
function scheduleFrames(meta: ResponseMeta, events: readonly ResponseEvent[], playback: ResponsesPlayback): { texts: string[]; cut: boolean } {
  const cutAfter = playback.cutAfterChunks ?? Number.POSITIVE_INFINITY;
  const errorAfter = playback.streamErrorAfterChunks ?? Number.POSITIVE_INFINITY;
  const contentTotal = events.filter((event) => event.content).length;
  const malformedAfter = Math.max(1, Math.floor(contentTotal / 2));
  let malformedPending = playback.malformedEvent;
  let sequence = 0;
  const texts: string[] = [];
  const frame = (event: ResponseEvent) => sseNamed(event.type, JSON.stringify({ type: event.type, sequence_number: sequence++, ...event.body }));
  let contentSent = 0;
  for (const event of events) {
    if (event.content && contentSent >= cutAfter) return { texts, cut: true };
    if (event.content && contentSent >= errorAfter) return { texts: [...texts, ...failureEvents(meta).map(frame)], cut: false };
    texts.push(frame(event));
    if (event.content) contentSent++;
    if (malformedPending && event.content && contentSent === malformedAfter) {
      texts.push(sseNamed(event.type, '{not json'));
      malformedPending = false;
    }
  }
  // A stream without deltas still gets its malformed event, right after the first one.
  if (malformedPending) texts.splice(Math.min(1, texts.length), 0, sseNamed('response.in_progress', '{not json'));
  // A cut past the last delta still drops the connection before the terminal event.
  if (playback.cutAfterChunks !== undefined) return { texts: texts.slice(0, -1), cut: true };
  return { texts, cut: false };
}
