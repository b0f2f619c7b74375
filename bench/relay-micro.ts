// In-process cost of the stream relays, free of network and machine noise: a recorded stream
// (the same reply, 12 text chunks plus usage, from each family's fixtures) played through each
// relay the gateway composes, one upstream event per network chunk, many times over. Reports CPU
// microseconds per stream. Used by bench/translated.ts (or alone: `node bench/relay-micro.ts`).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { openaiChatOutput } from '../src/dialects/openai/chat-output.ts';
import { messagesOutput } from '../src/dialects/messages/output.ts';
import { relayEvents, type ChatCall, type StreamRelay, type TargetInfo } from '../src/core/contracts/vendor-codec.ts';
import { chatOperationCodec } from '../src/pipeline/chat-codec.ts';
import { SseDecoder } from '../src/core/sse.ts';
import { anthropicChat } from '../src/vendors/anthropic/chat.ts';
import { anthropicMessages } from '../src/vendors/anthropic/messages.ts';
import { openaiChat } from '../src/vendors/openai/chat.ts';
import { emptyUsage } from '../src/core/usage.ts';

const VENDORS = new URL('../src/vendors/', import.meta.url).pathname;
const target: TargetInfo = { providerId: 'p', upstreamModel: 'm', publicModel: 'm' };
const call: ChatCall = {
  body: { model: 'm', messages: [] },
  stream: true,
  clientWantsUsage: true,
  maxOutputTokens: 100,
  created: 0,
};

/** The fixture as the network would deliver it: one chunk per event. */
function chunks(family: string, file: string): Uint8Array[] {
  const text = readFileSync(join(VENDORS, family, 'fixtures', file), 'utf8');
  return text.split(/(?<=\n\n)/).map((event) => new TextEncoder().encode(event));
}

/** The chunks as src/pipeline/relay-sse.ts feeds them: to a relay's byte path when it has one (the pass-throughs), else decoded into events. */
function play(relay: StreamRelay, parts: readonly Uint8Array[]): number {
  let decoder: SseDecoder | undefined;
  let bytes = 0;
  for (const part of parts) bytes += (relay.onChunk ? relay.onChunk(part) : relayEvents(relay, (decoder ??= new SseDecoder()).push(part))).length;
  bytes += (relay.onChunkEnd ? relay.onChunkEnd() : relayEvents(relay, (decoder ??= new SseDecoder()).end())).length;
  return bytes + relay.end().trailer(emptyUsage()).length;
}

export interface MicroResult {
  relay: string;
  events: number;
  usPerStream: number;
}

export function runRelayMicro(iterations = 20_000): MicroResult[] {
  const openai = chunks('openai', 'chat-text.sse');
  const anthropic = chunks('anthropic', 'messages-text.sse');
  const cases: Array<[string, readonly Uint8Array[], () => StreamRelay]> = [
    ['chat → OpenAI family (pass-through)', openai, () => chatOperationCodec(openaiChat, openaiChatOutput(true)).relay!(call, target)],
    ['chat → messages family (translated)', anthropic, () => chatOperationCodec(anthropicChat, openaiChatOutput(true)).relay!(call, target)],
    ['messages → messages family (pass-through)', anthropic, () => anthropicMessages.relay!({ body: {}, stream: true, nativeVersion: 'v', nativeBeta: undefined, toChat: () => call }, target)],
    ['messages → OpenAI family (bridged)', openai, () => chatOperationCodec(openaiChat, messagesOutput).relay!(call, target)],
  ];
  const results: MicroResult[] = [];
  for (const [name, parts, relay] of cases) {
    for (let i = 0; i < iterations / 4; i++) play(relay(), parts); // warm-up
    const before = process.cpuUsage();
    for (let i = 0; i < iterations; i++) play(relay(), parts);
    const used = process.cpuUsage(before);
    results.push({ relay: name, events: parts.length, usPerStream: (used.user + used.system) / iterations });
  }
  return results;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  for (const r of runRelayMicro()) process.stdout.write(`${r.relay.padEnd(44)} ${String(r.events).padStart(3)} events  ${r.usPerStream.toFixed(1).padStart(7)} µs CPU per stream\n`);
}
