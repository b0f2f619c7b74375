import type { RealtimeGeneration } from '../core/contracts/realtime-codec.ts';
import { createTranslator, type EventTranslator } from './translate/events.ts';

/**
 * The interface generations of a session's two ends. The client's is the handshake's guess until
 * a frame shows it; the first frame that does settles it, and server events follow it from then on.
 */
export class Generations {
  readonly upstream: RealtimeGeneration;
  private client: RealtimeGeneration;
  private shown = false;
  /** server events → the client's generation (null: the same as the upstream's) */
  translator: EventTranslator | null;
  private readonly onAdopt: (from: RealtimeGeneration, to: RealtimeGeneration) => void;

  constructor(client: RealtimeGeneration, upstream: RealtimeGeneration, onAdopt: (from: RealtimeGeneration, to: RealtimeGeneration) => void) {
    this.client = client;
    this.upstream = upstream;
    this.onAdopt = onAdopt;
    this.translator = createTranslator(client, upstream);
  }

  /** A client frame showed `generation` (undefined: it writes alike in both). */
  show(generation: RealtimeGeneration | undefined): void {
    if (generation === undefined || this.shown) return;
    this.shown = true;
    if (generation === this.client) return;
    this.onAdopt(this.client, generation);
    this.client = generation;
    this.translator = createTranslator(generation, this.upstream);
  }

  /** Whether a client frame that showed `generation` must be rewritten for the upstream: each frame from its own generation, whatever the handshake said. */
  rewritesClientFrame(generation: RealtimeGeneration | undefined): boolean {
    return (generation ?? this.client) !== this.upstream;
  }
}
