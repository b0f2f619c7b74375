// The two realtime interface generations as the vendor speaks them (protocols.md §2.9): session
// and response shapes, event names, and what each generation rejects. Written independently of
// the gateway's translator on purpose: the simulator is the vendor the translator is tested against.

export type Generation = 'beta' | 'ga';
export type Json = Record<string, unknown>;
export type AudioFormat = 'pcm16' | 'g711_ulaw' | 'g711_alaw';

export const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

/** The session configuration, whichever generation set it. */
export interface SimConfig {
  instructions: string;
  /** output modality audio (with transcript) rather than text */
  audioOut: boolean;
  voice: string;
  inputFormat: AudioFormat;
  outputFormat: AudioFormat;
  turnDetection: Json | null;
  transcription: Json | null;
  maxOutputTokens: number | 'inf';
  tools: unknown[];
  toolChoice: unknown;
  temperature: number;
}

export function defaultConfig(): SimConfig {
  return {
    instructions: 'You are a helpful assistant.',
    audioOut: true,
    voice: 'alloy',
    inputFormat: 'pcm16',
    outputFormat: 'pcm16',
    turnDetection: { type: 'server_vad', threshold: 0.5, prefix_padding_ms: 300, silence_duration_ms: 200, create_response: true, interrupt_response: true },
    transcription: null,
    maxOutputTokens: 'inf',
    tools: [],
    toolChoice: 'auto',
    temperature: 0.8,
  };
}

const GA_FORMATS: Record<AudioFormat, Json> = { pcm16: { type: 'audio/pcm', rate: 24000 }, g711_ulaw: { type: 'audio/pcmu' }, g711_alaw: { type: 'audio/pcma' } };
const FROM_GA_FORMAT: Record<string, AudioFormat> = { 'audio/pcm': 'pcm16', 'audio/pcmu': 'g711_ulaw', 'audio/pcma': 'g711_alaw' };
const BETA_FORMATS = new Set<string>(['pcm16', 'g711_ulaw', 'g711_alaw']);

/** bytes of one second of input audio */
export function bytesPerSecond(format: AudioFormat): number {
  return format === 'pcm16' ? 48_000 : 8_000;
}

/** GA event names; the beta generation renames these */
const BETA_NAMES: Record<string, string> = {
  'response.output_text.delta': 'response.text.delta',
  'response.output_text.done': 'response.text.done',
  'response.output_audio.delta': 'response.audio.delta',
  'response.output_audio.done': 'response.audio.done',
  'response.output_audio_transcript.delta': 'response.audio_transcript.delta',
  'response.output_audio_transcript.done': 'response.audio_transcript.done',
  'conversation.item.added': 'conversation.item.created',
};

export function eventName(gaName: string, generation: Generation): string {
  return generation === 'beta' ? (BETA_NAMES[gaName] ?? gaName) : gaName;
}

/** content part type names of assistant output */
export function outputPartType(kind: 'text' | 'audio', generation: Generation): string {
  return generation === 'ga' ? `output_${kind}` : kind;
}

export function renderSession(config: SimConfig, meta: { id: string; model: string; expiresAt: number }, generation: Generation): Json {
  if (generation === 'ga') {
    return {
      type: 'realtime',
      object: 'realtime.session',
      id: meta.id,
      model: meta.model,
      output_modalities: [config.audioOut ? 'audio' : 'text'],
      instructions: config.instructions,
      tools: config.tools,
      tool_choice: config.toolChoice,
      max_output_tokens: config.maxOutputTokens,
      tracing: null,
      truncation: 'auto',
      prompt: null,
      expires_at: meta.expiresAt,
      audio: {
        input: { format: GA_FORMATS[config.inputFormat], transcription: config.transcription, noise_reduction: null, turn_detection: config.turnDetection },
        output: { format: GA_FORMATS[config.outputFormat], voice: config.voice, speed: 1 },
      },
      include: null,
    };
  }
  return {
    id: meta.id,
    object: 'realtime.session',
    model: meta.model,
    expires_at: meta.expiresAt,
    modalities: config.audioOut ? ['text', 'audio'] : ['text'],
    instructions: config.instructions,
    voice: config.voice,
    input_audio_format: config.inputFormat,
    output_audio_format: config.outputFormat,
    input_audio_transcription: config.transcription,
    turn_detection: config.turnDetection,
    tools: config.tools,
    tool_choice: config.toolChoice,
    temperature: config.temperature,
    max_response_output_tokens: config.maxOutputTokens,
    speed: 1,
    tracing: null,
  };
}

const GA_SESSION_KEYS = new Set(['type', 'output_modalities', 'instructions', 'audio', 'tools', 'tool_choice', 'max_output_tokens', 'model', 'tracing', 'truncation', 'include', 'prompt', 'parallel_tool_calls', 'reasoning']);
const BETA_SESSION_KEYS = new Set([
  'modalities', 'instructions', 'voice', 'input_audio_format', 'output_audio_format', 'input_audio_transcription', 'input_audio_noise_reduction',
  'turn_detection', 'tools', 'tool_choice', 'temperature', 'max_response_output_tokens', 'model', 'speed', 'tracing',
]);

/** A failure is `{ param, message }`, worded the way the vendor words them. */
export interface WireError {
  param: string;
  message: string;
  code: string;
}

const unknownParameter = (param: string): WireError => ({ param, message: `Unknown parameter: '${param}'.`, code: 'unknown_parameter' });
const invalidValue = (param: string, message: string): WireError => ({ param, message, code: 'invalid_value' });

/** Applies a session.update to `config` (only when valid): the generation's own fields, nothing else. */
export function applySessionUpdate(config: SimConfig, session: Json, generation: Generation): WireError | undefined {
  const next = { ...config };
  const error = generation === 'ga' ? applyGa(next, session) : applyBeta(next, session);
  if (!error) Object.assign(config, next);
  return error;
}

function applyGa(config: SimConfig, s: Json): WireError | undefined {
  for (const key of Object.keys(s)) if (!GA_SESSION_KEYS.has(key)) return unknownParameter(`session.${key}`);
  if (s.type !== 'realtime') return { param: 'session.type', message: "Missing required parameter: 'session.type'.", code: 'missing_required_parameter' };
  if (s.output_modalities !== undefined) {
    const m = s.output_modalities;
    if (!Array.isArray(m) || m.length !== 1 || (m[0] !== 'text' && m[0] !== 'audio')) {
      return invalidValue('session.output_modalities', "Invalid modalities: supported combinations are ['text'] and ['audio'].");
    }
    config.audioOut = m[0] === 'audio';
  }
  if (typeof s.instructions === 'string') config.instructions = s.instructions;
  if (s.max_output_tokens !== undefined) config.maxOutputTokens = s.max_output_tokens as number | 'inf';
  if (Array.isArray(s.tools)) config.tools = s.tools;
  if (s.tool_choice !== undefined) config.toolChoice = s.tool_choice;
  if (s.audio !== undefined) {
    if (!isObject(s.audio)) return invalidValue('session.audio', "Invalid type for 'session.audio': expected an object.");
    const input = isObject(s.audio.input) ? s.audio.input : {};
    const output = isObject(s.audio.output) ? s.audio.output : {};
    if (input.format !== undefined) {
      const format = isObject(input.format) && typeof input.format.type === 'string' ? FROM_GA_FORMAT[input.format.type] : undefined;
      if (!format) return invalidValue('session.audio.input.format', "Invalid value for 'session.audio.input.format': expected {type: 'audio/pcm' | 'audio/pcmu' | 'audio/pcma'}.");
      config.inputFormat = format;
    }
    if ('turn_detection' in input) config.turnDetection = isObject(input.turn_detection) ? input.turn_detection : null;
    if ('transcription' in input) config.transcription = isObject(input.transcription) ? input.transcription : null;
    if (output.format !== undefined) {
      const format = isObject(output.format) && typeof output.format.type === 'string' ? FROM_GA_FORMAT[output.format.type] : undefined;
      if (!format) return invalidValue('session.audio.output.format', "Invalid value for 'session.audio.output.format'.");
      config.outputFormat = format;
    }
    if (typeof output.voice === 'string') config.voice = output.voice;
  }
  return undefined;
}

function applyBeta(config: SimConfig, s: Json): WireError | undefined {
  for (const key of Object.keys(s)) if (!BETA_SESSION_KEYS.has(key)) return unknownParameter(`session.${key}`);
  if (s.modalities !== undefined) {
    const m = s.modalities;
    if (!Array.isArray(m) || m.length === 0 || !m.every((x) => x === 'text' || x === 'audio') || !m.includes('text')) {
      return invalidValue('session.modalities', "Invalid modalities: supported combinations are ['text'] and ['audio', 'text'].");
    }
    config.audioOut = m.includes('audio');
  }
  if (typeof s.instructions === 'string') config.instructions = s.instructions;
  if (typeof s.voice === 'string') config.voice = s.voice;
  for (const [key, field] of [['input_audio_format', 'inputFormat'], ['output_audio_format', 'outputFormat']] as const) {
    const value = s[key];
    if (value === undefined) continue;
    if (typeof value !== 'string' || !BETA_FORMATS.has(value)) return invalidValue(`session.${key}`, `Invalid value: '${String(value)}'. Supported values are: 'pcm16', 'g711_ulaw', and 'g711_alaw'.`);
    config[field] = value as AudioFormat;
  }
  if ('turn_detection' in s) config.turnDetection = isObject(s.turn_detection) ? s.turn_detection : null;
  if ('input_audio_transcription' in s) config.transcription = isObject(s.input_audio_transcription) ? s.input_audio_transcription : null;
  if (typeof s.temperature === 'number') config.temperature = s.temperature;
  if (s.max_response_output_tokens !== undefined) config.maxOutputTokens = s.max_response_output_tokens as number | 'inf';
  if (Array.isArray(s.tools)) config.tools = s.tools;
  if (s.tool_choice !== undefined) config.toolChoice = s.tool_choice;
  return undefined;
}

const GA_RESPONSE_KEYS = new Set(['output_modalities', 'instructions', 'audio', 'tools', 'tool_choice', 'max_output_tokens', 'conversation', 'metadata', 'input', 'prompt']);
const BETA_RESPONSE_KEYS = new Set(['modalities', 'instructions', 'voice', 'output_audio_format', 'tools', 'tool_choice', 'temperature', 'max_response_output_tokens', 'conversation', 'metadata', 'input']);

/** Per-response overrides of response.create: `audioOut`, `maxOutputTokens`, `instructions`. */
export interface ResponseOverrides {
  audioOut?: boolean;
  maxOutputTokens?: number | 'inf';
  instructions?: string;
  conversation?: string;
  /** out-of-band input items: the response's context instead of the conversation */
  input?: unknown[];
}

export function readResponseParams(response: Json, generation: Generation): ResponseOverrides | WireError {
  const keys = generation === 'ga' ? GA_RESPONSE_KEYS : BETA_RESPONSE_KEYS;
  for (const key of Object.keys(response)) if (!keys.has(key)) return unknownParameter(`response.${key}`);
  const out: ResponseOverrides = {};
  const modalities = generation === 'ga' ? response.output_modalities : response.modalities;
  if (Array.isArray(modalities)) out.audioOut = modalities.includes('audio');
  const max = generation === 'ga' ? response.max_output_tokens : response.max_response_output_tokens;
  if (max !== undefined) out.maxOutputTokens = max as number | 'inf';
  if (typeof response.instructions === 'string') out.instructions = response.instructions;
  if (typeof response.conversation === 'string') out.conversation = response.conversation;
  if (Array.isArray(response.input)) out.input = response.input;
  return out;
}

/** Content part types a client may put in a message item, by generation and role. */
export function allowedPartTypes(generation: Generation, role: string): string[] {
  if (role === 'assistant') return generation === 'ga' ? ['output_text', 'output_audio'] : ['text', 'audio'];
  return generation === 'ga' ? ['input_text', 'input_audio', 'input_image'] : ['input_text', 'input_audio', 'text'];
}

/** The response object of response.created / response.done. */
export function renderResponse(
  r: { id: string; status: string; output: Json[]; usage: Json | null; audioOut: boolean; maxOutputTokens: number | 'inf'; statusDetails: Json | null },
  config: SimConfig,
  generation: Generation,
): Json {
  const base: Json = { object: 'realtime.response', id: r.id, status: r.status, status_details: r.statusDetails, output: r.output, conversation_id: 'conv_sim', max_output_tokens: r.maxOutputTokens, usage: r.usage, metadata: null };
  if (generation === 'ga') {
    return { ...base, output_modalities: [r.audioOut ? 'audio' : 'text'], audio: { output: { format: GA_FORMATS[config.outputFormat], voice: config.voice } } };
  }
  return { ...base, modalities: r.audioOut ? ['text', 'audio'] : ['text'], voice: config.voice, output_audio_format: config.outputFormat, temperature: config.temperature };
}
