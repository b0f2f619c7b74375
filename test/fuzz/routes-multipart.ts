// The multipart routes (image edits, transcriptions): valid forms, forms with a part missing,
// wrong or repeated, and bodies that are not well-formed multipart at all.
import fc from 'fast-check';
import type { FuzzRequest, MultipartPart } from './request.ts';
import { hostileValue } from './values.ts';
import { text } from './routes-openai.ts';

interface FormRoute {
  path: string;
  valid: fc.Arbitrary<MultipartPart[]>;
  fileField: string;
}

const transcriptions: FormRoute = {
  path: '/v1/audio/transcriptions',
  fileField: 'file',
  valid: fc.constantFrom('json', 'text', 'verbose_json').map((format) => [
    { name: 'model', value: 'whisper-1' },
    { name: 'response_format', value: format },
    { name: 'file', filename: 'speech.wav', contentType: 'audio/wav', value: { fixture: 'wav' } },
  ]),
};

const edits: FormRoute = {
  path: '/v1/images/edits',
  fileField: 'image',
  valid: text().map((prompt) => [
    { name: 'model', value: 'image-a-2' },
    { name: 'prompt', value: prompt },
    { name: 'size', value: '256x256' },
    { name: 'image', filename: 'a.png', contentType: 'image/png', value: { fixture: 'png' } },
  ]),
};

const asText = (value: unknown): string => (typeof value === 'string' ? value : JSON.stringify(value) ?? 'undefined');

function formCases(route: FormRoute): fc.Arbitrary<FuzzRequest> {
  return route.valid.chain((parts) => {
    const base = (body: FuzzRequest['body'], mutation: string, extra: Partial<FuzzRequest> = {}): FuzzRequest => ({
      route: `POST ${route.path}`,
      method: 'POST',
      path: route.path,
      dialect: 'openai',
      principal: 'broken',
      body,
      mutation,
      ...extra,
    });
    const form = (p: MultipartPart[], breakage?: 'no-boundary' | 'no-closing' | 'wrong-boundary' | 'truncated') => ({ kind: 'multipart' as const, parts: p, ...(breakage && { breakage }) });
    const names = parts.map((p) => p.name);
    return fc.oneof(
      { weight: 4, arbitrary: fc.constant(base(form(parts), 'none (valid)', { valid: true })) },
      { weight: 2, arbitrary: fc.constantFrom(...names).map((name) => base(form(parts.filter((p) => p.name !== name)), `dropped part ${name}`)) },
      {
        weight: 3,
        arbitrary: fc.tuple(fc.constantFrom(...names.filter((n) => n !== route.fileField)), hostileValue).map(([name, value]) =>
          base(form(parts.map((p) => (p.name === name ? { name, value: asText(value) } : p))), `hostile value in part ${name}`),
        ),
      },
      {
        weight: 2,
        arbitrary: fc.constantFrom(
          base(form([...parts, { name: 'model', value: 'tts-1' }]), 'model part repeated'),
          base(form(parts.map((p) => (p.name === 'model' ? { name: 'model', value: 'gpt-4o-mini' } : p))), 'model of the wrong kind', { fault: 'model' }),
          base(form(parts.map((p) => (p.name === 'model' ? { name: 'model', value: 'm'.repeat(4096) } : p))), 'model is a 4 KiB string', { fault: 'model' }),
          base(form(parts.map((p) => (p.name === route.fileField ? { name: p.name, value: 'not a file' } : p))), 'the file sent as a text field'),
          base(form(parts.map((p) => (p.name === route.fileField ? { ...p, value: { fixture: 'noise', bytes: 3000 } } : p))), 'the file is noise'),
          base(form(parts.map((p) => (p.name === route.fileField ? { ...p, value: { fixture: 'noise', bytes: 0 } } : p))), 'the file is empty'),
          base(form([...parts, ...Array.from({ length: 40 }, (_, i) => ({ name: `file${i}`, filename: `x${i}.bin`, value: { fixture: 'noise' as const, bytes: 1000 } }))]), '40 extra files'),
          base(form(parts.map((p) => (p.name === route.fileField ? { ...p, filename: '../../etc/passwd\u0000.wav' } : p))), 'a hostile file name'),
        ),
      },
      { weight: 2, arbitrary: fc.constantFrom('no-boundary' as const, 'no-closing' as const, 'wrong-boundary' as const, 'truncated' as const).map((b) => base(form(parts, b), `broken multipart: ${b}`)) },
      { weight: 1, arbitrary: fc.constant(base({ kind: 'json', value: Object.fromEntries(parts.filter((p) => typeof p.value === 'string').map((p) => [p.name, p.value])) }, 'JSON instead of a form')) },
    );
  });
}

export const multipartCases: fc.Arbitrary<FuzzRequest> = fc.oneof(formCases(transcriptions), formCases(edits));
