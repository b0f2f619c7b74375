import type { ChatOutput } from '../../core/ir/output.ts';
import { encodeMessage } from './encode.ts';
import { MessagesStreamEncoder } from './encode-stream.ts';

/** The messages format as an IR output: what a bridged (non-native) provider's answer is encoded into. */
export const messagesOutput: ChatOutput = {
  wire: 'messages',
  contentType: 'application/json',
  encodeCompletion: encodeMessage,
  streamEncoder: () => new MessagesStreamEncoder(),
};
