// Plays upstream bytes through a stream relay exactly as the pipeline does (SSE decoder, relay,
// in-band error or trailer), for tests that compare relays without a network.
import type { StreamRelay } from '../../src/core/contracts/vendor-codec.ts';
import { SseDecoder } from '../../src/core/sse.ts';
import { emptyUsage } from '../../src/core/usage.ts';

export interface Result {
  text: string;
  complete: boolean;
  usage: unknown;
  failed: string | undefined;
  delivered: number;
}

/** Feeds the chunks through the SSE decoder and the relay exactly as the pipeline does. */
export function play(relay: StreamRelay, chunks: readonly Uint8Array[]): Result {
  const decoder = new SseDecoder();
  let text = '';
  outer: for (const chunk of chunks) {
    for (const event of decoder.push(chunk)) {
      text += relay.onEvent(event);
      if (relay.failed) break outer;
    }
  }
  if (!relay.failed) for (const event of decoder.end()) text += relay.onEvent(event);
  const end = relay.end();
  if (relay.failed) text += relay.errorEvent(relay.failed);
  // settled as the pipeline settles a stream whose vendor reported no usage: the delivered output counted
  else if (end.complete) text += end.trailer(end.usage ?? { ...emptyUsage(), outputTokens: relay.deliveredOutputTokens() });
  return { text, complete: end.complete, usage: end.usage, failed: relay.failed?.code ?? undefined, delivered: relay.deliveredOutputTokens() };
}
