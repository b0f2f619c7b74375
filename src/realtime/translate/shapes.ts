// Object shapes that differ between the beta and GA realtime interfaces (protocols.md §2.9
// mapping table): session configuration, response parameters and response objects, conversation
// items, audio formats and modalities. Pure functions on plain JSON; fields a side does not know
// are dropped only where that side would reject them.

export type Json = Record<string, unknown>;

export const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

const BETA_TO_GA_FORMAT: Record<string, Json> = {
  pcm16: { type: 'audio/pcm', rate: 24000 },
  g711_ulaw: { type: 'audio/pcmu' },
  g711_alaw: { type: 'audio/pcma' },
};
const GA_TO_BETA_FORMAT: Record<string, string> = { 'audio/pcm': 'pcm16', 'audio/pcmu': 'g711_ulaw', 'audio/pcma': 'g711_alaw' };

export function formatToGa(value: unknown): unknown {
  return typeof value === 'string' ? (BETA_TO_GA_FORMAT[value] ?? value) : value;
}

export function formatToBeta(value: unknown): unknown {
  if (isObject(value) && typeof value.type === 'string') return GA_TO_BETA_FORMAT[value.type] ?? value.type;
  return value;
}

/** beta lists `["text","audio"]`; GA allows one output modality, audio carrying its transcript */
export function modalitiesToGa(value: unknown): unknown {
  return Array.isArray(value) ? (value.includes('audio') ? ['audio'] : ['text']) : value;
}

export function modalitiesToBeta(value: unknown): unknown {
  return Array.isArray(value) ? (value.includes('audio') ? ['text', 'audio'] : ['text']) : value;
}

/** GA-only session fields a beta upstream rejects as unknown parameters */
const GA_ONLY_SESSION_FIELDS = new Set(['type', 'include', 'truncation', 'prompt', 'reasoning', 'parallel_tool_calls']);

/** beta `session` (session.update, session.created…) → GA */
export function sessionToGa(session: Json): Json {
  const out: Json = { type: 'realtime' };
  const input: Json = {};
  const output: Json = {};
  for (const [key, value] of Object.entries(session)) {
    switch (key) {
      case 'modalities':
        out.output_modalities = modalitiesToGa(value);
        break;
      case 'voice':
      case 'speed':
        output[key] = value;
        break;
      case 'output_audio_format':
        output.format = formatToGa(value);
        break;
      case 'input_audio_format':
        input.format = formatToGa(value);
        break;
      case 'input_audio_transcription':
        input.transcription = value;
        break;
      case 'input_audio_noise_reduction':
        input.noise_reduction = value;
        break;
      case 'turn_detection':
        input.turn_detection = value;
        break;
      case 'max_response_output_tokens':
        out.max_output_tokens = value;
        break;
      case 'temperature': // GA has no sampling temperature
      case 'client_secret':
        break;
      default:
        out[key] = value;
    }
  }
  const audio: Json = {};
  if (Object.keys(input).length > 0) audio.input = input;
  if (Object.keys(output).length > 0) audio.output = output;
  if (Object.keys(audio).length > 0) out.audio = audio;
  return out;
}

/** GA `session` → beta */
export function sessionToBeta(session: Json): Json {
  const out: Json = {};
  for (const [key, value] of Object.entries(session)) {
    if (GA_ONLY_SESSION_FIELDS.has(key)) continue;
    switch (key) {
      case 'output_modalities':
        out.modalities = modalitiesToBeta(value);
        break;
      case 'max_output_tokens':
        out.max_response_output_tokens = value;
        break;
      case 'audio':
        if (isObject(value)) flattenAudio(value, out);
        break;
      default:
        out[key] = value;
    }
  }
  return out;
}

function flattenAudio(audio: Json, out: Json): void {
  const input = isObject(audio.input) ? audio.input : {};
  const output = isObject(audio.output) ? audio.output : {};
  if ('format' in input) out.input_audio_format = formatToBeta(input.format);
  if ('transcription' in input) out.input_audio_transcription = input.transcription;
  if ('noise_reduction' in input) out.input_audio_noise_reduction = input.noise_reduction;
  if ('turn_detection' in input) out.turn_detection = input.turn_detection;
  if ('format' in output) out.output_audio_format = formatToBeta(output.format);
  if ('voice' in output) out.voice = output.voice;
  if ('speed' in output) out.speed = output.speed;
}

/**
 * Response parameters (response.create) and response objects (response.created/done) → GA.
 * `max_response_output_tokens` exists only in beta parameters; response objects of both
 * generations say `max_output_tokens`.
 */
export function responseToGa(response: Json): Json {
  const out: Json = {};
  const output: Json = {};
  for (const [key, value] of Object.entries(response)) {
    switch (key) {
      case 'modalities':
        out.output_modalities = modalitiesToGa(value);
        break;
      case 'voice':
        output.voice = value;
        break;
      case 'output_audio_format':
        output.format = formatToGa(value);
        break;
      case 'max_response_output_tokens':
        out.max_output_tokens = value;
        break;
      case 'temperature':
        break;
      case 'input':
      case 'output':
        out[key] = Array.isArray(value) ? value.map((item) => (isObject(item) ? itemToGa(item) : item)) : value;
        break;
      default:
        out[key] = value;
    }
  }
  if (Object.keys(output).length > 0) out.audio = { output };
  return out;
}

/** GA response parameters or response object → beta; `asParams` for response.create */
export function responseToBeta(response: Json, asParams: boolean): Json {
  const out: Json = {};
  for (const [key, value] of Object.entries(response)) {
    switch (key) {
      case 'output_modalities':
        out.modalities = modalitiesToBeta(value);
        break;
      case 'max_output_tokens':
        out[asParams ? 'max_response_output_tokens' : 'max_output_tokens'] = value;
        break;
      case 'audio': {
        const output = isObject(value) && isObject(value.output) ? value.output : {};
        if ('voice' in output) out.voice = output.voice;
        if ('format' in output) out.output_audio_format = formatToBeta(output.format);
        break;
      }
      case 'input':
      case 'output':
        out[key] = Array.isArray(value) ? value.map((item) => (isObject(item) ? itemToBeta(item) : item)) : value;
        break;
      case 'prompt':
      case 'reasoning':
      case 'parallel_tool_calls':
        break;
      default:
        out[key] = value;
    }
  }
  return out;
}

/** beta content part types of a message item, by role → GA */
function contentTypeToGa(role: unknown, type: unknown): unknown {
  if (role === 'assistant') return type === 'text' ? 'output_text' : type === 'audio' ? 'output_audio' : type;
  return type === 'text' ? 'input_text' : type === 'audio' ? 'input_audio' : type;
}

function contentTypeToBeta(type: unknown): unknown {
  return type === 'output_text' ? 'text' : type === 'output_audio' ? 'audio' : type;
}

export function itemToGa(item: Json): Json {
  return mapContent(item, (type) => contentTypeToGa(item.role, type));
}

export function itemToBeta(item: Json): Json {
  return mapContent(item, contentTypeToBeta);
}

function mapContent(item: Json, mapType: (type: unknown) => unknown): Json {
  if (!Array.isArray(item.content)) return item;
  return { ...item, content: item.content.map((part: unknown) => (isObject(part) ? { ...part, type: mapType(part.type) } : part)) };
}

/** content parts in response.content_part.* events */
export function partToBeta(part: unknown): unknown {
  return isObject(part) ? { ...part, type: contentTypeToBeta(part.type) } : part;
}
