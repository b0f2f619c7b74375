import type {} from '@fastify/multipart';
import { randomUUID } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { GatewayError, invalidRequest } from '../core/errors.ts';
import type { MultipartForm } from '../core/contracts/multipart-form.ts';
import type { UploadedFile } from '../core/ir/media.ts';

/** A form as read here: its files stay on disk until `cleanup`. */
export interface SpooledForm extends MultipartForm {
  /** removes the spooled files; call when the request is over */
  cleanup(): Promise<void>;
}

/** How much one multipart request may carry (MediaConfig's upload settings). */
export interface UploadLimits {
  uploadDir: string;
  /** one file */
  maxUploadBytes: number;
  /** every file and text field of the request together */
  maxUploadTotalBytes: number;
}

/** parts of one form: an edit takes an image and a mask, a transcription one file */
export const MAX_FILES = 20;
export const MAX_FIELDS = 200;
const MAX_FIELD_BYTES = 1024 * 1024;

const tooLarge = (limit: number) =>
  new GatewayError({
    status: 413,
    type: 'invalid_request_error',
    message: `An uploaded file is larger than the gateway's limit of ${limit} bytes.`,
    param: 'file',
    code: 'file_too_large',
  });

const tooLargeTogether = (limit: number) =>
  new GatewayError({
    status: 413,
    type: 'invalid_request_error',
    message: `The files and fields of this form add up to more than the gateway's limit of ${limit} bytes per request (MODELGATE_MAX_UPLOAD_TOTAL_BYTES).`,
    param: 'file',
    code: 'upload_too_large',
  });

/**
 * Reads a multipart form, spooling every file part to `uploadDir` as it arrives: the upload is
 * never held whole in memory, a file past `maxUploadBytes` or a form past `maxUploadTotalBytes`
 * (files and fields together) is refused with 413 as soon as the limit is crossed — its spooled
 * files deleted — and the spooled files can be sent upstream again on failover. Called by the
 * handlers, so only for requests admission let in (key, rate limit, balance).
 */
export async function readMultipart(request: FastifyRequest, reply: FastifyReply, limits: UploadLimits): Promise<SpooledForm> {
  const { uploadDir: dir, maxUploadBytes: maxFileBytes, maxUploadTotalBytes: maxTotal } = limits;
  const fields: Array<[string, string]> = [];
  const files: UploadedFile[] = [];
  const cleanup = async () => {
    await Promise.all(files.map((f) => rm(f.path, { force: true })));
  };
  let total = 0;
  try {
    await mkdir(dir, { recursive: true });
    const parts = request.parts({ limits: { fileSize: maxFileBytes, files: MAX_FILES, fields: MAX_FIELDS, fieldSize: MAX_FIELD_BYTES } });
    for await (const part of parts) {
      if (part.type === 'field') {
        if (typeof part.value !== 'string') throw invalidRequest(`The form field '${part.fieldname}' must be text.`, part.fieldname);
        if (part.valueTruncated) {
          throw new GatewayError({ status: 413, type: 'invalid_request_error', message: `The form field '${part.fieldname}' is longer than ${MAX_FIELD_BYTES} bytes.`, param: part.fieldname, code: 'field_too_large' });
        }
        total += Buffer.byteLength(part.value);
        if (total > maxTotal) throw tooLargeTogether(maxTotal);
        fields.push([part.fieldname, part.value]);
        continue;
      }
      // the client's extension is kept: media libraries use it as a hint for the container format
      const ext = /\.([A-Za-z0-9]{1,5})$/.exec(part.filename ?? '')?.[1];
      const path = join(dir, `upload-${randomUUID()}${ext ? `.${ext.toLowerCase()}` : ''}`);
      const file: UploadedFile = { field: part.fieldname, filename: part.filename || 'upload', contentType: part.mimetype || 'application/octet-stream', path, size: 0 };
      files.push(file);
      part.file.on('data', (chunk: Buffer) => {
        file.size += chunk.length;
        total += chunk.length;
        // the pipeline below fails with this, and the catch deletes what was spooled
        if (total > maxTotal) part.file.destroy(tooLargeTogether(maxTotal));
      });
      await pipeline(part.file, createWriteStream(path));
      if (part.file.truncated) throw tooLarge(maxFileBytes);
    }
  } catch (error) {
    await cleanup();
    // the rest of the body stays unread: the connection closes after the answer rather than
    // waiting for (or draining) what the client still sends
    if (!request.raw.complete) reply.header('connection', 'close');
    const code = (error as { code?: string }).code;
    if (code === 'FST_REQ_FILE_TOO_LARGE') throw tooLarge(maxFileBytes);
    if (code === 'FST_PARTS_LIMIT' || code === 'FST_FILES_LIMIT' || code === 'FST_FIELDS_LIMIT') {
      throw new GatewayError({
        status: 413,
        type: 'invalid_request_error',
        message: `The form has too many parts: at most ${MAX_FILES} files and ${MAX_FIELDS} fields.`,
        code: 'too_many_parts',
      });
    }
    if (error instanceof GatewayError) throw error;
    throw invalidRequest('The multipart form could not be read; send multipart/form-data with a boundary.', null, 'invalid_multipart');
  }
  return {
    fields,
    files,
    field: (name) => fields.findLast(([n]) => n === name)?.[1],
    cleanup,
  };
}
