import type { ChatOutput } from '../../core/ir/output.ts';
import { encodeChatCompletion } from './encode-chat.ts';
import { OpenAIChatStreamEncoder } from './encode-chat-stream.ts';

const withUsage = output(true);
const withoutUsage = output(false);

/** The OpenAI chat dialect as an IR output: the IR's own wire form. */
export function openaiChatOutput(clientWantsUsage: boolean): ChatOutput {
  return clientWantsUsage ? withUsage : withoutUsage;
}

function output(wantsUsage: boolean): ChatOutput {
  return {
    wire: 'openai-chat',
    contentType: 'application/json',
    encodeCompletion: encodeChatCompletion,
    streamEncoder: () => new OpenAIChatStreamEncoder(wantsUsage),
  };
}
