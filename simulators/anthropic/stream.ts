// A reply as the vendor streams it (protocols.md §3.5): `event:` lines equal to the JSON type,
// message_start → per block start / deltas / stop → message_delta → message_stop, a ping after
// the first block opens; plus the stream scenarios (cut, in-band error, malformed event).
import type { ServerResponse } from 'node:http';
import { delay, startEventStream } from '../_kit/http.ts';
import { splitBySize, splitIntoChunks } from '../_kit/text.ts';
import { sseNamed } from '../../src/core/sse.ts';
import { STREAM_ERROR } from './errors.ts';
import type { Reply, ReplyBlock } from './reply.ts';

interface Event {
  name: string;
  data: string;
  /** deltas are what the cut and error scenarios count */
  content: boolean;
}

const ARGUMENT_FRAGMENT_CHARS = 8;

export function streamEvents(reply: Reply, meta: { id: string; model: string }, streamChunks: number): Event[] {
  const event = (name: string, body: Record<string, unknown>, content = false): Event => ({ name, data: JSON.stringify({ type: name, ...body }), content });
  const events: Event[] = [
    event('message_start', {
      message: { id: meta.id, type: 'message', role: 'assistant', model: meta.model, content: [], stop_reason: null, stop_sequence: null, usage: { ...reply.usage, output_tokens: 1 } },
    }),
  ];
  reply.blocks.forEach((block, index) => {
    events.push(event('content_block_start', { index, content_block: openingOf(block) }));
    if (index === 0) events.push(event('ping', {}));
    for (const delta of deltasOf(block, streamChunks)) events.push(event('content_block_delta', { index, delta }, true));
    events.push(event('content_block_stop', { index }));
  });
  events.push(event('message_delta', { delta: { stop_reason: reply.stopReason, stop_sequence: reply.stopSequence }, usage: { output_tokens: reply.usage.output_tokens, ...(reply.usage.server_tool_use && { server_tool_use: reply.usage.server_tool_use }) } }));
  events.push(event('message_stop', {}));
  return events;
}

function openingOf(block: ReplyBlock): Record<string, unknown> {
  switch (block.type) {
    case 'text':
      return { type: 'text', text: '' };
    case 'thinking':
      return { type: 'thinking', thinking: '', signature: '' };
    case 'tool_use':
      return { type: 'tool_use', id: block.id, name: block.name, input: {} };
  }
}

function deltasOf(block: ReplyBlock, streamChunks: number): Record<string, unknown>[] {
  switch (block.type) {
    case 'text':
      return splitIntoChunks(block.text, streamChunks).map((text) => ({ type: 'text_delta', text }));
    case 'thinking':
      return [...splitIntoChunks(block.thinking, 3).map((thinking) => ({ type: 'thinking_delta', thinking })), { type: 'signature_delta', signature: block.signature }];
    case 'tool_use':
      // the vendor opens every tool input with an empty fragment
      return [{ type: 'input_json_delta', partial_json: '' }, ...splitBySize(JSON.stringify(block.input), ARGUMENT_FRAGMENT_CHARS).map((partial_json) => ({ type: 'input_json_delta', partial_json }))];
  }
}

export interface Playback {
  chunkDelayMs: number;
  cutAfterChunks?: number;
  streamErrorAfterChunks?: number;
  malformedEvent: boolean;
  headers: Record<string, string>;
  signal: AbortSignal;
}

export async function playStream(res: ServerResponse, events: readonly Event[], playback: Playback): Promise<void> {
  const texts: string[] = [];
  let content = 0;
  let ending: 'end' | 'cut' = 'end';
  for (const event of events) {
    if (event.content && content === playback.cutAfterChunks) {
      ending = 'cut';
      break;
    }
    if (event.content && content === playback.streamErrorAfterChunks) {
      texts.push(sseNamed('error', STREAM_ERROR));
      break;
    }
    texts.push(sseNamed(event.name, event.data));
    if (event.content) content++;
    if (playback.malformedEvent && event.content && content === 1) texts.push(sseNamed('content_block_delta', '{not json'));
  }
  startEventStream(res, playback.headers);
  for (let i = 0; i < texts.length; i++) {
    if (i > 0) await delay(playback.chunkDelayMs, playback.signal);
    if (res.destroyed) return;
    if (ending === 'cut' && i === texts.length - 1) await new Promise<void>((resolve) => res.write(texts[i]!, () => resolve()));
    else res.write(texts[i]!);
  }
  if (ending === 'cut') res.destroy();
  else res.end();
}
