// POST /v1/audio/transcriptions (multipart, protocols §2.5) and /v1/audio/speech (§2.6).
import { parseBuffer } from 'music-metadata';
import { makeAudio, type AudioFormat } from '../_kit/media/audio.ts';
import { invalidRequest } from './errors.ts';
import type { MediaReply, MediaRequest } from './media-reply.ts';

const TRANSCRIPT_FORMATS = ['json', 'text', 'srt', 'verbose_json', 'vtt'];
const SPEECH_TYPES: Record<AudioFormat, string> = { mp3: 'audio/mpeg', opus: 'audio/opus', aac: 'audio/aac', flac: 'audio/flac', wav: 'audio/wav', pcm: 'audio/pcm' };
const VOICES = new Set(['alloy', 'ash', 'ballad', 'coral', 'echo', 'fable', 'onyx', 'nova', 'sage', 'shimmer', 'verse']);
/** speaking rate of the simulated voice */
const CHARS_PER_SECOND = 15;

export async function transcriptionReply(request: MediaRequest): Promise<MediaReply> {
  const form = request.form;
  if (!form) return { kind: 'error', error: invalidRequest('This endpoint takes multipart/form-data.', null) };
  const file = form.files.find((f) => f.field === 'file');
  if (!file) return { kind: 'error', error: invalidRequest("Missing required parameter: 'file'.", 'file') };
  if (!form.field('model')) return { kind: 'error', error: invalidRequest("Missing required parameter: 'model'.", 'model') };
  const format = form.field('response_format') ?? 'json';
  if (!TRANSCRIPT_FORMATS.includes(format)) return { kind: 'error', error: invalidRequest(`Invalid value for 'response_format': ${format}.`, 'response_format') };
  let seconds: number;
  try {
    const meta = await parseBuffer(file.data, { mimeType: file.contentType, size: file.data.length }, { duration: true });
    seconds = meta.format.duration ?? Number.NaN;
  } catch {
    seconds = Number.NaN;
  }
  if (!Number.isFinite(seconds)) return { kind: 'error', error: invalidRequest('Audio file might be corrupted or unsupported.', 'file', 'invalid_value') };
  const language = form.field('language') || 'en';
  const text = `Simulated transcript of ${file.filename}.`;
  const end = Math.round(seconds * 1000) / 1000;
  switch (format) {
    case 'text':
      return { kind: 'bytes', contentType: 'text/plain; charset=utf-8', data: Buffer.from(`${text}\n`) };
    case 'srt':
      return { kind: 'bytes', contentType: 'text/plain; charset=utf-8', data: Buffer.from(`1\n00:00:00,000 --> ${stamp(end, ',')}\n${text}\n\n`) };
    case 'vtt':
      return { kind: 'bytes', contentType: 'text/vtt; charset=utf-8', data: Buffer.from(`WEBVTT\n\n00:00:00.000 --> ${stamp(end, '.')}\n${text}\n\n`) };
    case 'verbose_json':
      return {
        kind: 'json',
        body: {
          task: 'transcribe',
          language: language === 'en' ? 'english' : language,
          duration: end,
          text,
          segments: [{ id: 0, seek: 0, start: 0, end, text, tokens: [], temperature: 0, avg_logprob: -0.2, compression_ratio: 1, no_speech_prob: 0.01 }],
          usage: { type: 'duration', seconds: Math.ceil(end) },
        },
      };
    default:
      return { kind: 'json', body: request.plan.omitUsage ? { text } : { text, usage: { type: 'duration', seconds: Math.ceil(end) } } };
  }
}

function stamp(seconds: number, separator: string): string {
  const ms = Math.round(seconds * 1000);
  const pad = (n: number, w = 2) => String(n).padStart(w, '0');
  return `${pad(Math.floor(ms / 3_600_000))}:${pad(Math.floor(ms / 60_000) % 60)}:${pad(Math.floor(ms / 1000) % 60)}${separator}${pad(ms % 1000, 3)}`;
}

export function speechReply(request: MediaRequest): MediaReply {
  const body = request.json;
  if (!body) return { kind: 'error', error: invalidRequest('This endpoint takes a JSON body.', null) };
  if (typeof body.input !== 'string' || body.input.length === 0) return { kind: 'error', error: invalidRequest("Missing required parameter: 'input'.", 'input') };
  if (body.input.length > 4096) return { kind: 'error', error: invalidRequest("Invalid 'input': string too long. Expected a string with maximum length 4096.", 'input', 'string_above_max_length') };
  if (typeof body.voice !== 'string' || !VOICES.has(body.voice)) return { kind: 'error', error: invalidRequest(`Invalid value for 'voice': ${String(body.voice)}.`, 'voice') };
  const format = (body.response_format ?? 'mp3') as AudioFormat;
  if (!(format in SPEECH_TYPES)) return { kind: 'error', error: invalidRequest(`Invalid value for 'response_format': ${String(format)}.`, 'response_format') };
  const speed = typeof body.speed === 'number' ? body.speed : 1;
  if (speed < 0.25 || speed > 4) return { kind: 'error', error: invalidRequest("Invalid 'speed': must be between 0.25 and 4.0.", 'speed') };
  const seconds = Math.max(0.5, body.input.length / CHARS_PER_SECOND / speed);
  return { kind: 'bytes', contentType: SPEECH_TYPES[format], data: makeAudio(format, seconds) };
}
