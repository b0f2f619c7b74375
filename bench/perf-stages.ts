// Where the gateway's CPU time goes, from a `perf record -g` file (`BENCH_PERF=1 npm run bench`).
// Each on-CPU sample is charged to one stage: the stage of the innermost frame on its stack that
// belongs to a known stage (so the tokenizer called by decodeChat counts as the tokenizer, and a
// socket write's kernel time counts for the JavaScript that made the call). The column "kernel"
// says how much of each stage's time was spent in the kernel on its behalf.
//
//   node bench/perf-stages.ts bench/results/profiles/<case>.data
import { execFileSync } from 'node:child_process';

const [file] = process.argv.slice(2);
if (!file) {
  process.stderr.write('usage: node bench/perf-stages.ts <perf.data>\n');
  process.exit(1);
}

/** stage → substrings of perf symbol names (JIT frames are named "JS:*'fn file:line") */
const STAGES: Array<[string, string[]]> = [
  ['garbage collection', ['v8::internal::Heap::', 'Scavenger', 'MarkCompact', 'ScavengeJob', 'MinorMarkSweep', 'v8::internal::GCTracer']],
  ['JIT compilation', ['v8::internal::compiler::', 'v8::internal::maglev::', 'v8::internal::baseline::', 'v8::internal::Compiler::']],
  ['prompt token count (gpt-tokenizer)', ['gpt-tokenizer']],
  ['logging (pino, sonic-boom, fs write)', ['pino/lib', 'sonic-boom', '@pinojs/redact', 'uv__fs_write', 'uv__fs_work']],
  ['metrics (prom-client)', ['prom-client']],
  ['write-behind flush (kysely + node:sqlite)', ['kysely', 'sqlite-dialect', 'sqlite3', 'node::sqlite', 'state-sync', 'store/repositories', 'store/flush-', 'sqlite-flush-connection']],
  ['body JSON parse + schema validation', ['secure-json-parse', 'ajv', 'content-type-parser.js', 'validation.js']],
  ['decode upstream JSON (usage, model)', ['decodeOpenAIJson']],
  ['stream relay (SSE decode, relay, sink)', ['sse.ts', 'eventsource-parser', 'passthrough-relay', 'client-sink', 'relayStream', 'TextDecoder']],
  ['auth (key hash + lookup)', ['key-store.ts', 'key-hash.ts', 'authenticate.ts']],
  ['gateway request logic (decodeChat, router, ledger, runOperation)', ['decode-chat.ts', 'router.ts', 'billing/ledger.ts', 'run-operation.ts', 'request-record.ts', 'pricing.ts', 'codec', 'vendors/openai/chat.ts', 'request-context.ts', 'routes/v1']],
  ['upstream HTTP client (undici, upstream-body)', ['undici/', 'upstream-body', 'upstream-client']],
  ['client HTTP server (fastify)', ['fastify/', 'find-my-way', 'light-my-request', 'avvio', 'fast-json-stringify']],
  ['client HTTP server (node:http)', ['_http_server', '_http_common', '_http_outgoing', '_http_incoming', 'node::http_parser', 'llhttp']],
  ['streams, sockets, event loop (node core)', ['node:internal/streams', 'node:net', 'stream_base_commons', 'node:internal/timers', 'task_queues', 'node:events', 'async_hooks', 'uv_run', 'uv__io_poll']],
];

const script = execFileSync('perf', ['script', '-i', file, '-F', 'comm,tid,ip,sym,dso'], {
  encoding: 'utf8',
  maxBuffer: 1 << 30,
  stdio: ['ignore', 'pipe', 'ignore'],
});
const samples = script.split('\n\n').filter((block) => block.trim() !== '');
const byStage = new Map<string, { all: number; kernel: number }>();
const byThread = new Map<string, number>();
for (const block of samples) {
  const lines = block.split('\n');
  const thread = (lines[0] ?? '').trim().split(/\s+/)[0] ?? '?';
  byThread.set(thread, (byThread.get(thread) ?? 0) + 1);
  const frames = lines.slice(1).map((l) => l.trim()).filter((l) => l !== '');
  const inKernel = (frames[0] ?? '').includes('[kernel.kallsyms]');
  let stage = thread === 'MainThread' ? 'other (native, unattributed)' : `other threads (${thread})`;
  search: for (const frame of frames) {
    for (const [name, needles] of STAGES) {
      if (needles.some((n) => frame.includes(n))) {
        stage = name;
        break search;
      }
    }
  }
  const entry = byStage.get(stage) ?? { all: 0, kernel: 0 };
  entry.all++;
  if (inKernel) entry.kernel++;
  byStage.set(stage, entry);
}
const total = samples.length;
const pct = (n: number) => `${((100 * n) / total).toFixed(1).padStart(5)}%`;
process.stdout.write(`${file}: ${total} on-CPU samples (task-clock)\n\nby thread:\n`);
for (const [thread, n] of [...byThread].sort((a, b) => b[1] - a[1])) process.stdout.write(`${pct(n)}  ${thread}\n`);
process.stdout.write('\nby stage (each sample once, innermost known frame; kernel = part of it in the kernel):\n');
for (const [stage, n] of [...byStage].sort((a, b) => b[1].all - a[1].all)) {
  process.stdout.write(`${pct(n.all)}  (kernel ${pct(n.kernel).trim()})  ${stage}\n`);
}
