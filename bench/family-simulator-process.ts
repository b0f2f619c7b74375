// One family's simulator as its own process, for bench/translated.ts:
//
//   node bench/family-simulator-process.ts --family openai|anthropic|gemini [--api-key k] [--stream-chunks 20]
//
// Once listening it prints one JSON line to stdout, {"baseUrl", "port", "pid"}; it closes on SIGTERM.
import { parseArgs } from 'node:util';
import { startAnthropicSimulator } from '../simulators/anthropic/server.ts';
import { startGeminiSimulator } from '../simulators/gemini/server.ts';
import { startOpenAISimulator } from '../simulators/openai/server.ts';

const { values } = parseArgs({
  options: { family: { type: 'string' }, 'api-key': { type: 'string' }, 'stream-chunks': { type: 'string' } },
  strict: true,
});
const options = { apiKey: values['api-key'] ?? 'sk-sim', streamChunks: Number(values['stream-chunks'] ?? 20), recordRequests: false };
const start = { openai: startOpenAISimulator, anthropic: startAnthropicSimulator, gemini: startGeminiSimulator }[values.family ?? ''];
if (!start) throw new Error('--family must be openai, anthropic or gemini');
const sim = await start(options);
process.stdout.write(`${JSON.stringify({ baseUrl: sim.baseUrl, port: sim.port, pid: process.pid })}\n`);
const stop = (): void => void sim.close().then(() => process.exit(0));
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
