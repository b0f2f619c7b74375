import type { UpstreamFailure } from './vendor-codec.ts';
import type { ProviderSettings } from './provider-settings.ts';

/**
 * The two generations of the realtime interface (protocols.md §2.9): the older beta one, chosen
 * by a beta header or subprotocol at the handshake, and the current (GA) one. Clients speak
 * either (src/dialects/openai/realtime-handshake.ts); each upstream speaks the one its provider
 * is configured for.
 */
export type RealtimeGeneration = 'beta' | 'ga';

/** What the session knows about the chosen provider when it opens the upstream socket. */
export interface RealtimeTarget {
  /** the provider's base URL, e.g. `https://api.vendor.example/v1` */
  baseUrl: string;
  apiKey: string;
  /** the model id sent upstream (after the provider's model_map) */
  upstreamModel: string;
  settings: ProviderSettings;
}

/** The upstream handshake: where to connect, with which headers and subprotocols. */
export interface RealtimeHandshake {
  /** `ws://…` or `wss://…` */
  url: string;
  headers: Record<string, string>;
  protocols: string[];
  /** the interface generation the upstream will speak on this socket */
  generation: RealtimeGeneration;
}

/**
 * A family's realtime capability. Pure: the gateway opens the socket, relays the frames and
 * translates between generations; the codec only says how to reach the upstream and how to read
 * its refusals.
 */
export interface RealtimeCodec {
  handshake(target: RealtimeTarget): RealtimeHandshake;
  /** classifies an HTTP answer the upstream gave instead of upgrading */
  mapError(status: number, body: Uint8Array, headers: Record<string, string | string[] | undefined>): UpstreamFailure;
}
