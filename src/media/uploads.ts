import type {} from '@fastify/multipart';
import { randomUUID } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { FastifyRequest } from 'fastify';
import { GatewayError, invalidRequest } from '../core/errors.ts';
import type { UploadedFile } from '../core/ir/media.ts';

export interface MultipartForm {
  /** text fields in the order sent; repeated names (`key[]`) appear once per value */
  fields: Array<[name: string, value: string]>;
  files: UploadedFile[];
  /** the last value of a text field */
  field(name: string): string | undefined;
  /** removes the spooled files; call when the request is over */
  cleanup(): Promise<void>;
}

const tooLarge = (limit: number) =>
  new GatewayError({
    status: 413,
    type: 'invalid_request_error',
    message: `An uploaded file is larger than the gateway's limit of ${limit} bytes.`,
    param: 'file',
    code: 'file_too_large',
  });

/**
 * Reads a multipart form, spooling every file part to `dir` as it arrives: the upload is never
 * held whole in memory, a file past `maxFileBytes` is refused with 413 as soon as the limit is
 * crossed, and the spooled files can be sent upstream again on failover.
 */
export async function readMultipart(request: FastifyRequest, dir: string, maxFileBytes: number): Promise<MultipartForm> {
  const fields: Array<[string, string]> = [];
  const files: UploadedFile[] = [];
  const cleanup = async () => {
    await Promise.all(files.map((f) => rm(f.path, { force: true })));
  };
  try {
    await mkdir(dir, { recursive: true });
    const parts = request.parts({ limits: { fileSize: maxFileBytes, files: 20, fields: 200, fieldSize: 1024 * 1024 } });
    for await (const part of parts) {
      if (part.type === 'field') {
        if (typeof part.value !== 'string') throw invalidRequest(`The form field '${part.fieldname}' must be text.`, part.fieldname);
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
      });
      await pipeline(part.file, createWriteStream(path));
      if (part.file.truncated) throw tooLarge(maxFileBytes);
    }
  } catch (error) {
    await cleanup();
    const code = (error as { code?: string }).code;
    if (code === 'FST_REQ_FILE_TOO_LARGE') throw tooLarge(maxFileBytes);
    if (code === 'FST_PARTS_LIMIT' || code === 'FST_FILES_LIMIT' || code === 'FST_FIELDS_LIMIT') {
      throw new GatewayError({ status: 413, type: 'invalid_request_error', message: 'The form has too many parts.', code: 'too_many_parts' });
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
