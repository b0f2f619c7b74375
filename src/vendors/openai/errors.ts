import type { UpstreamFailure } from '../../core/contracts/vendor-codec.ts';
import { classifyUpstreamError, type ResponseHeaders } from '../_kit/upstream-failure.ts';

interface OpenAIErrorBody {
  error?: { message?: unknown; type?: unknown; param?: unknown; code?: unknown } | string;
  message?: unknown;
  detail?: unknown;
}

/** Reads the message of an OpenAI-style error body; tolerates the variants compatible servers send. */
export function readOpenAIError(body: Uint8Array): { message: string; param: string | null; code: string | null } {
  try {
    const parsed = JSON.parse(Buffer.from(body).toString('utf8')) as OpenAIErrorBody;
    const error = parsed.error;
    if (typeof error === 'string') return { message: error, param: null, code: null };
    if (error && typeof error === 'object') {
      return {
        message: typeof error.message === 'string' ? error.message : 'upstream error',
        param: typeof error.param === 'string' ? error.param : null,
        code: typeof error.code === 'string' ? error.code : null,
      };
    }
    const message = typeof parsed.message === 'string' ? parsed.message : typeof parsed.detail === 'string' ? parsed.detail : null;
    if (message) return { message, param: null, code: null };
  } catch {
    // not JSON: fall through
  }
  return { message: 'upstream error', param: null, code: null };
}

/** Classifies an OpenAI-family error answer (see classifyUpstreamError). */
export function mapOpenAIError(status: number, body: Uint8Array, headers: ResponseHeaders): UpstreamFailure {
  return classifyUpstreamError(status, readOpenAIError(body), headers);
}
