import type { ChatOutput } from '../../core/ir/output.ts';
import { encodeMessage } from './encode.ts';
import { MessagesStreamEncoder } from './encode-stream.ts';

/** The messages format as an IR output: what a bridged (non-native) provider's answer is encoded into. */
export const messagesOutput: ChatOutput = {
  wire: 'messages',
  contentType: 'application/json',
  encodeCompletion: (completion) => encodeMessage(completion),
  streamEncoder: () => new MessagesStreamEncoder(),
};

/** The same, for a request that turned thinking on: the model's reasoning text as a thinking block. */
export const messagesThinkingOutput: ChatOutput = {
  wire: 'messages',
  contentType: 'application/json',
  encodeCompletion: (completion) => encodeMessage(completion, true),
  streamEncoder: () => new MessagesStreamEncoder(true),
};
