import type { ChatCodec, MessagesCall, MessagesCodec, OperationCodec } from '../../core/contracts/vendor-codec.ts';
import type { OperationBridge } from '../../pipeline/types.ts';

const adapted = new WeakMap<ChatCodec, MessagesCodec>();

/**
 * Serves the messages format through a provider's chat codec: the request goes in as the IR
 * (translated once per request, on first use), the answer comes back through the messages
 * output the IR call carries. Settings dropped on the way are reported like the family's own.
 */
export const messagesBridge: OperationBridge<MessagesCall> = {
  via: 'chat',
  codecFor(viaCodec: OperationCodec<never>): MessagesCodec {
    const chat = viaCodec as unknown as ChatCodec;
    let codec = adapted.get(chat);
    if (!codec) {
      codec = bridge(chat);
      adapted.set(chat, codec);
    }
    return codec;
  },
};

function bridge(chat: ChatCodec): MessagesCodec {
  const relay = chat.relay;
  return {
    prepare(call, target) {
      const chatCall = call.toChat();
      const request = chat.prepare(chatCall, target);
      const warnings = [...(chatCall.warnings ?? []), ...(request.warnings ?? [])];
      return warnings.length > 0 ? { ...request, warnings } : request;
    },
    decode: (call, target, body) => chat.decode(call.toChat(), target, body),
    ...(relay && { relay: (call: MessagesCall, target) => relay.call(chat, call.toChat(), target) }),
    mapError: chat.mapError,
  };
}
