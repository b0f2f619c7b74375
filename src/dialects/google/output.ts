import type { ChatOutput } from '../../core/ir/output.ts';
import { encodeGenerateContent } from './encode-generate.ts';
import { GoogleStreamEncoder, type GoogleStreamForm } from './encode-generate-stream.ts';

const outputs: Readonly<Record<GoogleStreamForm, ChatOutput>> = { sse: output('sse'), array: output('array') };

/** Google's generateContent wire as an IR output; a stream is written as events (`?alt=sse`) or as a JSON array. */
export function googleOutput(form: GoogleStreamForm): ChatOutput {
  return outputs[form];
}

function output(form: GoogleStreamForm): ChatOutput {
  return { wire: 'gemini', contentType: 'application/json', encodeCompletion: encodeGenerateContent, streamEncoder: () => new GoogleStreamEncoder(form) };
}
