// Reading request bodies in the simulators: raw bytes and multipart/form-data (whole bodies in
// memory — simulators see small test uploads only).
import type { IncomingMessage } from 'node:http';

export interface SimFile {
  field: string;
  filename: string;
  contentType: string;
  data: Buffer;
}

export interface SimForm {
  fields: Map<string, string[]>;
  files: SimFile[];
  field(name: string): string | undefined;
}

export async function readRawBody(req: IncomingMessage, limitBytes: number): Promise<Buffer | 'too-large'> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > limitBytes) return 'too-large';
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

/** Parses a multipart body; undefined when the content type or the body is not multipart. */
export function parseMultipart(body: Buffer, contentType: string | undefined): SimForm | undefined {
  const boundary = /boundary=(?:"([^"]+)"|([^;\s]+))/i.exec(contentType ?? '');
  if (!contentType?.toLowerCase().startsWith('multipart/form-data') || !boundary) return undefined;
  const delimiter = Buffer.from(`--${boundary[1] ?? boundary[2]}`, 'latin1');
  const fields = new Map<string, string[]>();
  const files: SimFile[] = [];
  let start = body.indexOf(delimiter);
  if (start < 0) return undefined;
  while (true) {
    start += delimiter.length;
    if (body.subarray(start, start + 2).toString('latin1') === '--') break;
    start += 2; // CRLF after the delimiter
    const next = body.indexOf(delimiter, start);
    if (next < 0) return undefined;
    const part = body.subarray(start, next - 2); // without the CRLF before the next delimiter
    const split = part.indexOf('\r\n\r\n');
    if (split < 0) return undefined;
    const headers = part.subarray(0, split).toString('utf8');
    const data = part.subarray(split + 4);
    const name = /name="([^"]*)"/i.exec(headers)?.[1] ?? '';
    const filename = /filename="([^"]*)"/i.exec(headers)?.[1];
    if (filename !== undefined) {
      files.push({ field: name, filename, contentType: /content-type:\s*([^\r\n]+)/i.exec(headers)?.[1]?.trim() ?? 'application/octet-stream', data: Buffer.from(data) });
    } else {
      fields.set(name, [...(fields.get(name) ?? []), data.toString('utf8')]);
    }
    start = next;
  }
  return { fields, files, field: (n) => fields.get(n)?.at(-1) };
}
