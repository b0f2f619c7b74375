/**
 * The gateway's neutral form of the media operations: what a dialect decodes a client request
 * into and what a vendor codec turns into its own wire format (and back). Pure types.
 */

/** A file the client uploaded, spooled to local disk (never held whole in memory). */
export interface UploadedFile {
  /** the form field it came in (`file`, `image`, `image[]`, `mask`, …) */
  field: string;
  filename: string;
  contentType: string;
  path: string;
  size: number;
}

/** Bytes held in memory (a base64 image from a JSON body). */
export interface InlineFile {
  field: string;
  filename: string;
  contentType: string;
  bytes: Uint8Array;
}

export type MediaFile = UploadedFile | InlineFile;

export type TranscriptionFormat = 'json' | 'text' | 'srt' | 'verbose_json' | 'vtt';

export interface TranscriptionCall {
  file: UploadedFile;
  /** every text field of the form except `model`, as sent (arrays as repeated values) */
  fields: Array<[name: string, value: string]>;
  format: TranscriptionFormat;
  /** measured from the file; null when the media library could not read it */
  measuredSeconds: number | null;
}

export type SpeechFormat = 'mp3' | 'opus' | 'aac' | 'flac' | 'wav' | 'pcm';

export interface SpeechCall {
  body: Record<string, unknown>;
  format: SpeechFormat;
  /** characters billed */
  characters: number;
}

/** One image generation, from `/v1/images/generations` or a native prediction request. */
export interface ImageGenerationCall {
  prompt: string;
  n: number;
  /** `WxH` */
  size: string;
  quality?: string;
  style?: string;
  /** the native prediction parameters (aspect ratio, person generation, 1K/2K) */
  aspectRatio?: string;
  imageSize?: string;
  personGeneration?: string;
  /** fields the client sent that the gateway does not interpret, passed to a same-shaped upstream */
  extra: Record<string, unknown>;
  /** the model takes `response_format` (asked for base64, so the gateway can serve links itself) */
  upstreamResponseFormat: boolean;
  /** extra native `parameters` passed to a prediction upstream */
  nativeParameters?: Record<string, unknown>;
}

export interface ImageEditCall {
  prompt: string | undefined;
  n: number;
  size: string | undefined;
  images: MediaFile[];
  mask: MediaFile | undefined;
  /** other text fields, passed through */
  extra: Record<string, string>;
  upstreamResponseFormat: boolean;
}

export interface GeneratedImage {
  /** base64 of the image bytes (vendors return bytes; the gateway turns them into links on request) */
  b64?: string;
  /** a vendor link, when the vendor answered with one despite being asked for bytes */
  url?: string;
  mimeType: string;
  revisedPrompt?: string;
}

export interface ImageResult {
  created: number;
  images: GeneratedImage[];
  /** vendor fields worth returning as they are (`background`, `output_format`, `usage`…) */
  extra: Record<string, unknown>;
}

export interface ModerationCall {
  body: Record<string, unknown>;
  inputs: number;
}

export interface RerankCall {
  query: string;
  documents: string[];
  topN: number | undefined;
  returnDocuments: boolean;
}

export interface RerankResult {
  id?: string;
  results: Array<{ index: number; relevance_score: number }>;
  /** tokens the vendor counted (token-priced rerankers) */
  tokens: number;
  /** search units the vendor billed (request-priced rerankers), 1 when not reported */
  searchUnits: number;
}

export interface VideoCall {
  prompt: string;
  seconds: number;
  /** `WxH` */
  size: string | undefined;
  /** native aspect ratio, for upstreams that take one */
  aspectRatio: string | undefined;
}

/** What a vendor answered when the job was submitted. */
export interface VideoSubmitted {
  upstreamId: string;
}

export type VideoPoll =
  | { state: 'running'; progress: number }
  | { state: 'failed'; code: string; message: string }
  /** the video is ready: where to fetch it (a path under the provider's base URL, or an absolute URL on its origin) or its bytes */
  | { state: 'completed'; seconds: number | null; download: { path: string } | { bytes: Uint8Array }; contentType: string };
