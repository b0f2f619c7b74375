import type { SpeechFormat, TranscriptionFormat } from '../../core/ir/media.ts';
import { emptyUsage } from '../../core/usage.ts';
import type { SpeechCodec, TranscriptionCodec } from '../../core/contracts/vendor-codec.ts';
import { multipartBody } from '../_kit/multipart.ts';
import { mapOpenAIError } from './errors.ts';
import { utf8Text } from '../_kit/read.ts';

const SPEECH_TYPES: Readonly<Record<SpeechFormat, string>> = {
  mp3: 'audio/mpeg',
  opus: 'audio/opus',
  aac: 'audio/aac',
  flac: 'audio/flac',
  wav: 'audio/wav',
  pcm: 'audio/pcm',
};

const TRANSCRIPT_TYPES: Readonly<Record<TranscriptionFormat, string>> = {
  json: 'application/json',
  verbose_json: 'application/json',
  text: 'text/plain; charset=utf-8',
  srt: 'text/plain; charset=utf-8',
  vtt: 'text/vtt; charset=utf-8',
};

/** The form goes upstream as the client sent it (model renamed), the file streamed from disk. */
export const openaiTranscriptions: TranscriptionCodec = {
  prepare(call, target) {
    const form = multipartBody([['model', target.upstreamModel], ...call.fields], [call.file]);
    return { path: '/audio/transcriptions', body: form.body, headers: { 'content-type': form.contentType, 'content-length': String(form.length) } };
  },

  decode(call, _target, raw) {
    const json = call.format === 'json' || call.format === 'verbose_json';
    const seconds = (json ? reportedSeconds(raw) : null) ?? call.measuredSeconds;
    return {
      body: raw,
      contentType: TRANSCRIPT_TYPES[call.format],
      usage: seconds === null ? null : { ...emptyUsage(), units: seconds },
    };
  },

  mapError: mapOpenAIError,
};

/** Seconds of audio the vendor reports: `duration` (verbose_json) or `usage: {type: "duration", seconds}`. */
function reportedSeconds(raw: Uint8Array): number | null {
  try {
    const json = JSON.parse(utf8Text(raw)) as { duration?: unknown; usage?: { type?: unknown; seconds?: unknown } };
    if (json.usage?.type === 'duration' && typeof json.usage.seconds === 'number') return json.usage.seconds;
    if (typeof json.duration === 'number') return json.duration;
  } catch {
    // not JSON: no reported duration
  }
  return null;
}

/** Speech: the JSON body passes through; the audio is relayed as it arrives. */
export const openaiSpeech: SpeechCodec = {
  prepare(call, target) {
    return { path: '/audio/speech', body: JSON.stringify({ ...call.body, model: target.upstreamModel }), headers: { accept: 'application/octet-stream' } };
  },

  decode(call, _target, raw) {
    return { body: raw, contentType: SPEECH_TYPES[call.format], usage: { ...emptyUsage(), units: call.characters } };
  },

  bytes(call) {
    return { contentType: SPEECH_TYPES[call.format], usage: { ...emptyUsage(), units: call.characters } };
  },

  mapError: mapOpenAIError,
};
