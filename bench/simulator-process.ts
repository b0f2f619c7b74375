// The OpenAI-family simulator as its own process, for the benchmark (bench/run.ts).
//
//   node bench/simulator-process.ts [--port 0] [--latency-ms 0] [--chunk-delay-ms 0] [--stream-chunks 20] [--api-key sk-sim] [--tls]
//
// Each option may also come from the environment (SIM_PORT, SIM_LATENCY_MS, SIM_CHUNK_DELAY_MS,
// SIM_STREAM_CHUNKS, SIM_API_KEY); a command-line flag wins. `--tls`: HTTPS with a throwaway
// certificate, HTTP/2 to clients that offer it, as vendors serve. Once listening it prints one JSON
// line to stdout, {"port", "baseUrl", "pid"} (and "certPath" with --tls: a server that calls it
// trusts it through NODE_EXTRA_CA_CERTS), and it closes on SIGTERM or SIGINT.
import { rmSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { selfSignedCertificate } from '../simulators/_kit/self-signed.ts';
import { startOpenAISimulator } from '../simulators/openai/server.ts';

const { values } = parseArgs({
  options: {
    port: { type: 'string' },
    'latency-ms': { type: 'string' },
    'chunk-delay-ms': { type: 'string' },
    'stream-chunks': { type: 'string' },
    'api-key': { type: 'string' },
    tls: { type: 'boolean' },
  },
  strict: true,
});

function intOption(flag: string | undefined, envName: string, fallback: number): number {
  const raw = flag ?? process.env[envName];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 0) throw new Error(`${envName} must be a non-negative integer (got "${raw}")`);
  return value;
}

const certificate = values.tls ? selfSignedCertificate() : undefined;
const sim = await startOpenAISimulator({
  ...(certificate && { tls: certificate }),
  apiKey: values['api-key'] ?? process.env.SIM_API_KEY ?? 'sk-sim',
  port: intOption(values.port, 'SIM_PORT', 0),
  latencyMs: intOption(values['latency-ms'], 'SIM_LATENCY_MS', 0),
  chunkDelayMs: intOption(values['chunk-delay-ms'], 'SIM_CHUNK_DELAY_MS', 0),
  streamChunks: intOption(values['stream-chunks'], 'SIM_STREAM_CHUNKS', 20),
  recordRequests: false,
});
process.stdout.write(`${JSON.stringify({ port: sim.port, baseUrl: sim.baseUrl, pid: process.pid, ...(certificate && { certPath: certificate.certPath }) })}\n`);

let closing = false;
const stop = (): void => {
  if (closing) return;
  closing = true;
  void sim.close().then(() => {
    if (certificate) rmSync(certificate.dir, { recursive: true, force: true });
    process.exit(0);
  });
};
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
