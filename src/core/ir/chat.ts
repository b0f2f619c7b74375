/**
 * The internal representation (IR) of a chat exchange's request and whole answer. It is the
 * OpenAI chat-completions shape (request, completion object), typed only as far as the gateway
 * reads it: every vendor family translates its wire format to and from these types, and every
 * client dialect encodes them. Two additions the OpenAI wire lacks: the vendor's own finish
 * reason (`raw_finish_reason`) beside the unified one, and the stop sequence that ended a choice.
 * A streamed answer is a union of parts instead (`stream.ts`).
 */

/** The unified finish reasons (OpenAI's set). */
export type FinishReason = 'stop' | 'length' | 'tool_calls' | 'content_filter';

// ---- request --------------------------------------------------------------------------------

export interface IrTextPart {
  type: 'text';
  text: string;
}

export interface IrImagePart {
  type: 'image_url';
  image_url: { url: string; detail?: 'auto' | 'low' | 'high' };
}

export interface IrAudioPart {
  type: 'input_audio';
  input_audio: { data: string; format: string };
}

export interface IrFilePart {
  type: 'file';
  file: { file_data?: string; file_id?: string; filename?: string };
}

export interface IrRefusalPart {
  type: 'refusal';
  refusal: string;
}

/** Parts a client may send; an unknown `type` stays opaque and families reject it by name. */
export type IrUserPart = IrTextPart | IrImagePart | IrAudioPart | IrFilePart;
export type IrAssistantPart = IrTextPart | IrRefusalPart;

export interface IrToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

export interface IrSystemMessage {
  role: 'system' | 'developer';
  content: string | IrTextPart[];
  name?: string;
}

export interface IrUserMessage {
  role: 'user';
  content: string | IrUserPart[];
  name?: string;
}

export interface IrAssistantMessage {
  role: 'assistant';
  content?: string | IrAssistantPart[] | null;
  tool_calls?: IrToolCall[];
  refusal?: string | null;
  name?: string;
}

export interface IrToolMessage {
  role: 'tool';
  content: string | IrTextPart[];
  tool_call_id: string;
}

/** The deprecated `function` role: passed through to OpenAI-family upstreams only. */
export interface IrFunctionMessage {
  role: 'function';
  content: string | null;
  name: string;
}

export type IrMessage = IrSystemMessage | IrUserMessage | IrAssistantMessage | IrToolMessage | IrFunctionMessage;

export interface IrFunctionTool {
  type: 'function';
  function: { name: string; description?: string; parameters?: Record<string, unknown>; strict?: boolean | null };
}

/** Other tool kinds (`custom`…): kept opaque. */
export interface IrOtherTool {
  type: string;
  [key: string]: unknown;
}

export type IrTool = IrFunctionTool | IrOtherTool;

export type IrToolChoice =
  | 'auto'
  | 'none'
  | 'required'
  | { type: 'function'; function: { name: string } }
  | { type: string; [key: string]: unknown };

export type IrResponseFormat =
  | { type: 'text' }
  | { type: 'json_object' }
  | { type: 'json_schema'; json_schema: { name: string; description?: string; schema?: Record<string, unknown>; strict?: boolean | null } };

/** A chat request. Fields the gateway does not read stay in the index signature, untouched. */
export interface IrChatRequest {
  model: string;
  messages: IrMessage[];
  stream?: boolean | null;
  stream_options?: { include_usage?: boolean } | null;
  max_tokens?: number | null;
  max_completion_tokens?: number | null;
  temperature?: number | null;
  top_p?: number | null;
  n?: number | null;
  stop?: string | string[] | null;
  seed?: number | null;
  presence_penalty?: number | null;
  frequency_penalty?: number | null;
  logprobs?: boolean | null;
  top_logprobs?: number | null;
  logit_bias?: Record<string, number> | null;
  user?: string;
  safety_identifier?: string;
  response_format?: IrResponseFormat;
  tools?: IrTool[];
  tool_choice?: IrToolChoice;
  parallel_tool_calls?: boolean;
  reasoning_effort?: string | null;
  /** the specification's extra field: `"image"` asks a model that can draw for images beside the text */
  modality?: 'text' | 'image' | null;
  /**
   * the client wants the model's reasoning text (a Responses `reasoning.summary`, Google's
   * `includeThoughts`, messages `thinking`): a family whose vendor shows it only on request asks
   * for it. The gateway's own field, like `modality`: never sent upstream as is.
   */
  include_reasoning?: boolean | null;
  [key: string]: unknown;
}

// ---- response -------------------------------------------------------------------------------

/**
 * An image the model drew (`modality: "image"`): a data URL in an `image_url` part, the shape
 * OpenRouter uses for `message.images` and `delta.images`.
 */
export interface IrOutputImage {
  type: 'image_url';
  image_url: { url: string };
}

export interface IrUsage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  prompt_tokens_details?: { cached_tokens?: number; cache_write_tokens?: number; audio_tokens?: number };
  completion_tokens_details?: { reasoning_tokens?: number };
}

export interface IrChoice {
  index: number;
  /** `reasoning`: the model's reasoning text as the vendor showed it (see the stream's `reasoning-delta`) */
  message: { role: 'assistant'; content: string | null; tool_calls?: IrToolCall[]; refusal?: string | null; images?: IrOutputImage[]; reasoning?: string };
  finish_reason: FinishReason;
  /** the vendor's own value (`end_turn`, `MAX_TOKENS`…); null when the vendor gave none */
  raw_finish_reason: string | null;
  /** the stop sequence that ended the choice, when the vendor says which */
  stop_sequence?: string | null;
}

export interface IrCompletion {
  id: string;
  created: number;
  model: string;
  choices: IrChoice[];
  usage: IrUsage | null;
}
