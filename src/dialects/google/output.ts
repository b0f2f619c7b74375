import type { ChatOutput } from '../../core/ir/output.ts';
import { encodeGenerateContent } from './encode-generate.ts';
import { GoogleStreamEncoder, type GoogleStreamForm } from './encode-generate-stream.ts';

/** the four outputs, made once: the pipeline composes a family's codec with each only once */
const outputs: Readonly<Record<GoogleStreamForm, readonly [ChatOutput, ChatOutput]>> = {
  sse: [output('sse', false), output('sse', true)],
  array: [output('array', false), output('array', true)],
};

/**
 * Google's generateContent wire as an IR output; a stream is written as events (`?alt=sse`) or as
 * a JSON array (`application/json`, as Google sends it). `thoughts`: the request set
 * `includeThoughts`, so the model's reasoning text is shown as thought parts.
 */
export function googleOutput(form: GoogleStreamForm, thoughts = false): ChatOutput {
  return outputs[form][thoughts ? 1 : 0];
}

function output(form: GoogleStreamForm, thoughts: boolean): ChatOutput {
  return {
    wire: 'gemini',
    contentType: 'application/json',
    encodeCompletion: (completion) => encodeGenerateContent(completion, thoughts),
    streamEncoder: () => new GoogleStreamEncoder(form, thoughts),
  };
}
