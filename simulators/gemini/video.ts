// models/{model}:predictLongRunning + GET operations + file download (protocols §5.6).
//   [[sim:fail]]     the operation ends with an error
//   [[sim:hang]]     the operation never ends
//   [[sim:polls=N]]  done on the N-th poll (default the first)
import { randomUUID } from 'node:crypto';
import { makeMp4 } from '../_kit/media/mp4.ts';
import { googleError, type SimReply } from './media-reply.ts';

export interface SimOperation {
  name: string;
  fileId: string;
  seconds: number;
  aspectRatio: string;
  polls: number;
  completeAfter: number;
  outcome: 'complete' | 'fail' | 'hang';
}

export function startOperation(model: string, body: unknown, operations: Map<string, SimOperation>): SimReply {
  const request = body as { instances?: Array<{ prompt?: unknown }>; parameters?: Record<string, unknown> } | undefined;
  const prompt = request?.instances?.[0]?.prompt;
  if (typeof prompt !== 'string' || prompt === '') return googleError(400, 'INVALID_ARGUMENT', '* instances[0].prompt: a prompt is required.');
  const seconds = Number(request?.parameters?.durationSeconds ?? 8);
  if (![4, 6, 8].includes(seconds)) return googleError(400, 'INVALID_ARGUMENT', `durationSeconds must be 4, 6 or 8 (got ${seconds}).`);
  const id = randomUUID().replaceAll('-', '').slice(0, 12);
  const polls = /\[\[sim:polls=(\d+)\]\]/.exec(prompt)?.[1];
  const op: SimOperation = {
    name: `models/${model}/operations/${id}`,
    fileId: `file-${id}`,
    seconds,
    aspectRatio: typeof request?.parameters?.aspectRatio === 'string' ? request.parameters.aspectRatio : '16:9',
    polls: 0,
    completeAfter: polls ? Number(polls) : 1,
    outcome: prompt.includes('[[sim:fail]]') ? 'fail' : prompt.includes('[[sim:hang]]') ? 'hang' : 'complete',
  };
  operations.set(op.name, op);
  return { kind: 'json', status: 200, body: { name: op.name } };
}

export function pollOperation(name: string, operations: Map<string, SimOperation>, baseUrl: string): SimReply {
  const op = operations.get(name);
  if (!op) return googleError(404, 'NOT_FOUND', `Operation ${name} not found.`);
  op.polls++;
  if (op.outcome === 'hang' || op.polls < op.completeAfter) return { kind: 'json', status: 200, body: { name, metadata: { progressPercent: 50 } } };
  if (op.outcome === 'fail') return { kind: 'json', status: 200, body: { name, done: true, error: { code: 13, message: 'Video generation failed (simulated).', status: 'INTERNAL' } } };
  return {
    kind: 'json',
    status: 200,
    body: {
      name,
      done: true,
      response: {
        '@type': 'type.googleapis.com/google.ai.generativelanguage.v1beta.PredictLongRunningResponse',
        generateVideoResponse: { generatedSamples: [{ video: { uri: `${baseUrl}/files/${op.fileId}:download?alt=media` } }], raiMediaFilteredCount: 0 },
      },
    },
  };
}

export function downloadFile(fileId: string, operations: Map<string, SimOperation>): SimReply {
  const op = [...operations.values()].find((o) => o.fileId === fileId);
  if (!op) return googleError(404, 'NOT_FOUND', `File ${fileId} not found.`);
  const [w, h] = op.aspectRatio === '9:16' ? [720, 1280] : [1280, 720];
  return { kind: 'bytes', contentType: 'video/mp4', data: makeMp4(op.seconds, w, h) };
}
