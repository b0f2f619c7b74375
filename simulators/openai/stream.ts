// Plays a prepared list of SSE events the way OpenAI sends them (protocols.md 1.6 and 7):
// one `data: <json>` per event, `data: [DONE]` last, plus the stream scenarios (cut, malformed).
import type { ServerResponse } from 'node:http';
import { delay, startEventStream, writeSseData } from '../_kit/http.ts';

export interface StreamEvent {
  /** JSON text of the event (single line). */
  data: string;
  /**
   * head: role chunks before any content; content: text or tool-call deltas (what `cut-stream`
   * counts); tail: finish and usage chunks.
   */
  part: 'head' | 'content' | 'tail';
}

export interface StreamPlayback {
  chunkDelayMs: number;
  /** Send this many content events, then drop the connection (no finish, no usage, no [DONE]). */
  cutAfterChunks?: number;
  /** Insert one `data: {not json` event in the middle of the content events. */
  malformedEvent: boolean;
  /** Send this many content events, then an in-band error event, then close (no [DONE]). */
  streamErrorAfterChunks?: number;
  headers: Record<string, string>;
  signal: AbortSignal;
}

const MALFORMED = '{not json';
const IN_BAND_ERROR = JSON.stringify({ error: { message: 'The server had an error while processing your request (simulated).', type: 'server_error', param: null, code: null } });
const DONE = '[DONE]';

export async function playEventStream(res: ServerResponse, events: readonly StreamEvent[], playback: StreamPlayback): Promise<void> {
  const lines = scheduleLines(events, playback);
  const cut = playback.cutAfterChunks !== undefined;
  startEventStream(res, playback.headers);
  for (let i = 0; i < lines.length; i++) {
    if (i > 0) await delay(playback.chunkDelayMs, playback.signal);
    if (res.destroyed) return;
    if (cut && i === lines.length - 1) {
      // Destroy only once the last event has reached the socket, so the client sees exactly N chunks.
      await new Promise<void>((resolve) => writeSseData(res, lines[i]!, () => resolve()));
    } else {
      writeSseData(res, lines[i]!);
    }
  }
  if (cut) res.destroy();
  else res.end();
}

/** The exact `data:` payloads to send, in order, after applying the cut and malformed scenarios. */
function scheduleLines(events: readonly StreamEvent[], playback: StreamPlayback): string[] {
  const cutAfter = playback.cutAfterChunks ?? Number.POSITIVE_INFINITY;
  const errorAfter = playback.streamErrorAfterChunks ?? Number.POSITIVE_INFINITY;
  const contentTotal = events.reduce((total, event) => total + (event.part === 'content' ? 1 : 0), 0);
  const malformedAfter = Math.max(1, Math.floor(contentTotal / 2));
  let malformedPending = playback.malformedEvent;
  const lines: string[] = [];
  let contentSent = 0;
  for (const event of events) {
    if (event.part !== 'head' && contentSent >= cutAfter) return lines;
    if (event.part !== 'head' && contentSent >= errorAfter) return [...lines, IN_BAND_ERROR];
    lines.push(event.data);
    if (event.part === 'content') contentSent++;
    if (malformedPending && event.part === 'content' && contentSent === malformedAfter) {
      lines.push(MALFORMED);
      malformedPending = false;
    }
  }
  // A stream without content still gets its malformed event, right after the first chunk.
  if (malformedPending) lines.splice(Math.min(1, lines.length), 0, MALFORMED);
  if (playback.cutAfterChunks === undefined) lines.push(DONE);
  return lines;
}
