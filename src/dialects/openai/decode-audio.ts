import type { CatalogueModel } from '../../core/contracts/catalogue-model.ts';
import { invalidRequest } from '../../core/errors.ts';
import type { SpeechCall, SpeechFormat, TranscriptionCall, TranscriptionFormat } from '../../core/ir/media.ts';
import type { MultipartForm } from '../../core/contracts/multipart-form.ts';
import { caps, oneOf, requireKind } from '../_kit/model-rules.ts';

const ALL_TRANSCRIPT_FORMATS: TranscriptionFormat[] = ['json', 'text', 'srt', 'verbose_json', 'vtt'];
/** formats whose answer never says how long the audio was */
const SILENT_FORMATS = new Set<TranscriptionFormat>(['text', 'srt', 'vtt']);

/**
 * The transcription form: `file` and `model` required, `response_format` among the model's,
 * `language` an ISO-639-1 code, `temperature` 0–1. The audio's length is measured up front (it
 * bounds the reservation); a format that never reports a length needs a file the media
 * library can read — the gateway does not guess what it cannot measure.
 */
export function decodeTranscription(form: MultipartForm, model: CatalogueModel, measuredSeconds: number | null): TranscriptionCall {
  requireKind(model, 'transcription', '/v1/audio/transcriptions');
  const file = form.files.find((f) => f.field === 'file');
  if (!file) throw invalidRequest("Missing required parameter: 'file' (the audio, as a multipart file).", 'file');
  if (file.size === 0) throw invalidRequest('file is empty.', 'file');
  const format = (form.field('response_format') || 'json') as TranscriptionFormat;
  oneOf(format, caps.list(model, 'response_formats') ?? ALL_TRANSCRIPT_FORMATS, 'response_format', model.id);
  const language = form.field('language');
  if (language && !/^[a-z]{2}$/.test(language)) throw invalidRequest(`language must be an ISO-639-1 code such as "en" (got "${language}").`, 'language');
  const temperature = form.field('temperature');
  if (temperature !== undefined && !(Number(temperature) >= 0 && Number(temperature) <= 1)) throw invalidRequest('temperature must be between 0 and 1.', 'temperature');
  if (form.field('stream') === 'true') throw invalidRequest('Streamed transcriptions are not supported by this gateway; omit stream.', 'stream');
  if (measuredSeconds === null && SILENT_FORMATS.has(format)) {
    throw invalidRequest(
      `The audio's duration could not be read from the file, and response_format "${format}" does not report it. Send a common audio format (mp3, mp4, m4a, wav, webm, ogg, flac) or ask for json/verbose_json.`,
      'file',
      'unreadable_audio',
    );
  }
  const fields = form.fields.filter(([name]) => name !== 'model' && name !== 'stream');
  return { file, fields, format, measuredSeconds };
}

/**
 * Speech: `input` at most the model's characters (4096), `voice` among the model's voices,
 * `response_format` and `speed` by the schema. Billed per character of input.
 */
export function decodeSpeech(body: Record<string, unknown>, model: CatalogueModel): SpeechCall {
  requireKind(model, 'speech', '/v1/audio/speech');
  const input = body.input as string;
  const characters = [...input].length;
  const maxChars = caps.number(model, 'max_input_chars') ?? 4096;
  if (characters > maxChars) throw invalidRequest(`input has ${characters} characters; at most ${maxChars} are allowed.`, 'input');
  const voices = caps.list(model, 'voices');
  if (voices) oneOf(body.voice as string, voices, 'voice', model.id);
  if (body.instructions !== undefined && model.capabilities.instructions === false) throw invalidRequest(`instructions is not supported by ${model.id}.`, 'instructions');
  return { body, format: ((body.response_format as SpeechFormat | undefined) ?? 'mp3'), characters };
}
