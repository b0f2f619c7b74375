import type { ChatCall, ChatCodec, MessagesCall, MessagesCodec, OperationCodec } from '../core/contracts/vendor-codec.ts';
import type { ChatOutput } from '../core/ir/output.ts';
import { chatOperationCodec } from './chat-codec.ts';
import type { OperationBridge } from './types.ts';

/**
 * Serves the messages format through a provider's chat codec where its family lacks the native
 * one: the request goes in as the IR (translated once per request, on first use), the answer
 * comes back through `output`, the messages dialect's encoder. Settings dropped on the way are
 * reported like the family's own.
 */
export function messagesThroughChat(output: ChatOutput): OperationBridge<MessagesCall> {
  const adapted = new WeakMap<ChatCodec, MessagesCodec>();
  return {
    via: 'chat',
    codecFor(viaCodec: OperationCodec<never>): MessagesCodec {
      const chat = viaCodec as unknown as ChatCodec;
      let codec = adapted.get(chat);
      if (!codec) {
        codec = bridge(chatOperationCodec(chat, output));
        adapted.set(chat, codec);
      }
      return codec;
    },
  };
}

function bridge(chat: OperationCodec<ChatCall>): MessagesCodec {
  const relay = chat.relay;
  return {
    // the settings dropped on the way to the IR are reported by the composed chat codec
    prepare: (call, target) => chat.prepare(call.toChat(), target),
    decode: (call, target, body) => chat.decode(call.toChat(), target, body),
    ...(relay && { relay: (call: MessagesCall, target) => relay.call(chat, call.toChat(), target) }),
    mapError: chat.mapError,
  };
}
