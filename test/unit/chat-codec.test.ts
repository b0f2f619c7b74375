// The pipeline's composition of a family's chat codec with the client's dialect: the family's
// pass-through only when the client reads the wire the family declares as its own, the IR and the
// dialect's encoder otherwise.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { ChatCall, TargetInfo } from '../../src/core/contracts/vendor-codec.ts';
import { messagesOutput } from '../../src/dialects/messages/output.ts';
import { openaiChatOutput } from '../../src/dialects/openai/chat-output.ts';
import { responsesOutput } from '../../src/dialects/responses/output.ts';
import type { RequestEcho } from '../../src/dialects/responses/response-object.ts';
import { chatOperationCodec } from '../../src/pipeline/chat-codec.ts';
import { IrStreamRelay } from '../../src/pipeline/ir-stream-relay.ts';
import { anthropicChat } from '../../src/vendors/anthropic/chat.ts';
import { openaiChat } from '../../src/vendors/openai/chat.ts';

const target: TargetInfo = { providerId: 'p', upstreamModel: 'm', publicModel: 'm' };
const call: ChatCall = { body: { model: 'm', messages: [] }, stream: false, clientWantsUsage: false, maxOutputTokens: 100, created: 1 };
const bytes = (text: string) => new TextEncoder().encode(text);
// unusual spacing: a re-encoded answer could not keep it
const openaiAnswer = '{"id":"c",  "object":"chat.completion","created":1,"model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"hi"},"finish_reason":"stop"}]}';

describe('chatOperationCodec', () => {
  test('an OpenAI-dialect client of the OpenAI family gets the upstream bytes (the pass-through)', () => {
    const raw = bytes(openaiAnswer);
    const decoded = chatOperationCodec(openaiChat, openaiChatOutput(false)).decode(call, target, raw);
    assert.equal(decoded.body, raw);
    assert.equal(decoded.usage, null);
    assert.equal(decoded.outputText, 'hi');
    assert.ok(!(chatOperationCodec(openaiChat, openaiChatOutput(true)).relay!({ ...call, stream: true }, target) instanceof IrStreamRelay));
  });

  test('a messages client of the OpenAI family gets the answer through the IR, in its own shape', () => {
    const codec = chatOperationCodec(openaiChat, messagesOutput);
    const decoded = codec.decode(call, target, bytes(openaiAnswer));
    const message = JSON.parse(decoded.body as string) as { type: string; content: Array<{ text: string }> };
    assert.equal(message.type, 'message');
    assert.equal(message.content[0]!.text, 'hi');
    assert.equal(decoded.contentType, 'application/json');
    assert.equal(decoded.outputText, 'hi');
    assert.ok(codec.relay!({ ...call, stream: true }, target) instanceof IrStreamRelay);
  });

  test('an answer without usage is counted locally from all the model wrote: reasoning, answer and refusal, whichever path', () => {
    const answer = '{"id":"c","object":"chat.completion","created":1,"model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"hi","reasoning_content":"think ","refusal":"no"},"finish_reason":"stop"}]}';
    assert.equal(chatOperationCodec(openaiChat, messagesOutput).decode(call, target, bytes(answer)).outputText, 'think hino');
    assert.equal(chatOperationCodec(openaiChat, openaiChatOutput(false)).decode(call, target, bytes(answer)).outputText, 'think hino');
  });

  test('a family without a pass-through is always translated', () => {
    assert.equal(anthropicChat.passthroughs, undefined);
    assert.ok(chatOperationCodec(anthropicChat, openaiChatOutput(true)).relay!({ ...call, stream: true }, target) instanceof IrStreamRelay);
  });

  test("a pass-through that needs the provider's opt-in (serves) is taken only for a provider that opted in", () => {
    const codec = chatOperationCodec(openaiChat, responsesOutput({} as RequestEcho));
    const native = { ...call, native: { wire: 'openai-responses' as const, body: { model: 'm', input: 'hi' } } };
    const optedIn = { ...target, settings: { responses_api: true } };
    assert.equal(codec.prepare(native, optedIn).path, '/responses');
    assert.equal(codec.prepare(native, target).path, '/chat/completions');
    assert.equal(codec.prepare(native, { ...target, settings: {} }).path, '/chat/completions');
    assert.equal(codec.prepare(call, optedIn).path, '/chat/completions', 'a call without its own request goes through the IR');
    assert.ok(!(codec.relay!({ ...native, stream: true }, optedIn) instanceof IrStreamRelay));
    assert.ok(codec.relay!({ ...native, stream: true }, target) instanceof IrStreamRelay);
  });

  test('one composed codec per family codec and output', () => {
    assert.equal(chatOperationCodec(openaiChat, messagesOutput), chatOperationCodec(openaiChat, messagesOutput));
    assert.notEqual(chatOperationCodec(openaiChat, messagesOutput), chatOperationCodec(openaiChat, openaiChatOutput(false)));
  });
});
