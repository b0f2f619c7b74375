import type { PricingUsd } from '../pricing.ts';
import type {
  ChatCodec,
  CompletionsCodec,
  CountTokensCodec,
  EmbeddingsCodec,
  ImageEditsCodec,
  ImagesCodec,
  MessagesCodec,
  ModerationsCodec,
  RerankCodec,
  SpeechCodec,
  TranscriptionCodec,
  VideoCodec,
} from './vendor-codec.ts';
import type { RealtimeCodec } from './realtime-codec.ts';

export type ModelKind =
  | 'chat'
  | 'completion'
  | 'embedding'
  | 'image'
  | 'speech'
  | 'transcription'
  | 'moderation'
  | 'rerank'
  | 'video'
  | 'realtime';

/** A model the gateway knows without being told: its kind, default price and rules. */
export interface KnownModel {
  id: string;
  kind: ModelKind;
  pricing: PricingUsd;
  /** rules and features the gateway enforces, e.g. {dimensions: 1536, supports_dimensions: true} */
  capabilities?: Record<string, unknown>;
  /** the vendor's own id when the public id is neutral (quick start maps one to the other) */
  upstreamId?: string;
  /** the most output tokens one answer may have: what a request with no cap of its own is reserved for */
  maxOutputTokens?: number;
}

export type AuthScheme = 'bearer' | 'x-api-key' | 'x-goog-api-key';

export interface VendorManifest {
  /** the provider `type` in the admin API */
  family: string;
  displayName: string;
  /** the family's `gen_ai.system` in OpenTelemetry's GenAI conventions, where it is not the family name */
  genAiSystem?: string;
  defaultBaseUrl: string;
  /**
   * The version segment the adapter's paths follow ("/v1", "/v1beta"): a base URL saved as a bare
   * origin, the form some vendor SDKs document, is given it. Absent: base URLs are kept as written.
   */
  versionSegment?: string;
  /** quick-start variable: when set, a provider of this family is created at start */
  envVar: string;
  auth: AuthScheme;
  /** `owned_by` shown on /v1/models */
  ownedBy: string;
  models: KnownModel[];
}

/** The family's cheapest request that shows a provider answers (its models list): a GET on the base URL. */
export interface HealthProbe {
  /** appended to the provider's base URL, e.g. "/models" */
  path: string;
  /** besides the credential, e.g. a required version header */
  headers?: Record<string, string>;
}

/** One wire family. Operations absent from the map are not supported: the router skips such providers. */
export interface ProviderAdapter {
  manifest: VendorManifest;
  operations: {
    chat?: ChatCodec;
    completions?: CompletionsCodec;
    embeddings?: EmbeddingsCodec;
    /** the native messages format (`POST /v1/messages`), passed through */
    messages?: MessagesCodec;
    /** `POST /v1/messages/count_tokens`, passed through */
    countTokens?: CountTokensCodec;
    transcriptions?: TranscriptionCodec;
    speech?: SpeechCodec;
    /** image generation, from `/v1/images/generations` and native predictions alike */
    images?: ImagesCodec;
    imageEdits?: ImageEditsCodec;
    imageVariations?: ImageEditsCodec;
    moderations?: ModerationsCodec;
    rerank?: RerankCodec;
    videos?: VideoCodec;
    /** GET /v1/realtime: the WebSocket relay (src/realtime) opens the upstream socket this describes */
    realtime?: RealtimeCodec;
  };
  /** the scheduled health check (src/health); absent: providers of the family are not probed */
  healthProbe?: HealthProbe;
}
