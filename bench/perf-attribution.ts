// Charges each on-CPU sample of a `perf record -g` file (task-clock) to one stage: the stage of
// the innermost frame on its stack that belongs to a known stage (so the tokenizer called by
// decodeChat counts as the tokenizer, and a socket write's kernel time counts for the JavaScript
// that made the call). Used by bench/perf-stages.ts (one file) and bench/floor-profile.ts (the
// relay, the floor and the gateway side by side).
//
// JIT frames named from /tmp/perf-<pid>.map (--perf-basic-prof-only-functions, as BENCH_PERF=1
// runs the gateway) can be wrong now and then: V8 reuses the address of discarded code for
// another function (a stack with Buffer.concat calling settleHeld was seen). A JIT dump merged by
// `perf inject --jit` (bench/floor-profile.ts) names them right.
import { execFileSync } from 'node:child_process';

/** stage → substrings of perf symbol names (JIT frames are named "JS:*'fn file:line") */
export const STAGES: Array<[string, string[]]> = [
  ['garbage collection', ['v8::internal::Heap::', 'Scavenger', 'MarkCompact', 'ConcurrentMarking', 'Sweeper', 'ScavengeJob', 'MinorMarkSweep', 'v8::internal::GCTracer']],
  ['JIT compilation', ['v8::internal::compiler::', 'v8::internal::maglev::', 'v8::internal::baseline::', 'v8::internal::Compiler::']],
  ['prompt token count (gpt-tokenizer)', ['gpt-tokenizer']],
  ['logging (pino, sonic-boom, fs write)', ['pino/lib', 'sonic-boom', '@pinojs/redact', 'uv__fs_write', 'uv__fs_work']],
  ['metrics (prom-client)', ['prom-client']],
  ['write-behind flush (kysely + node:sqlite)', ['kysely', 'sqlite-dialect', 'sqlite3', 'node::sqlite', 'state-sync', 'store/repositories', 'store/flush-', 'sqlite-flush-connection']],
  ['body JSON parse + schema validation', ['secure-json-parse', 'ajv', 'content-type-parser.js', 'validation.js']],
  ['decode upstream JSON (usage, model)', ['decodeOpenAIJson']],
  ['stream relay (SSE decode, relay, sink)', ['sse.ts', 'eventsource-parser', 'passthrough-relay', 'client-sink', 'relayStream', 'TextDecoder']],
  ['the floor relay\'s own code', ['floor-relay.ts']],
  ['auth (key hash + lookup)', ['key-store.ts', 'key-hash.ts', 'authenticate.ts']],
  ['gateway request logic (decodeChat, router, ledger, runOperation)', ['decode-chat.ts', 'router.ts', 'billing/ledger.ts', 'run-operation.ts', 'request-record.ts', 'pricing.ts', 'codec', 'vendors/openai/chat.ts', 'request-context.ts', 'routes/v1']],
  ['upstream HTTP client (undici, upstream-body)', ['undici/', 'upstream-body', 'upstream-client']],
  ['client HTTP server (fastify)', ['fastify/', 'find-my-way', 'light-my-request', 'avvio', 'fast-json-stringify']],
  ['client HTTP server (node:http)', ['_http_server', '_http_common', '_http_outgoing', '_http_incoming', 'node::http_parser', 'llhttp']],
  ['streams, sockets, event loop (node core)', ['node:internal/streams', 'node:net', 'stream_base_commons', 'node:internal/timers', 'task_queues', 'node:events', 'async_hooks', 'uv_run', 'uv__io_poll']],
];

export interface Attribution {
  /** on-CPU samples in all */
  total: number;
  byThread: Map<string, number>;
  /** samples per stage, and the part of them in the kernel */
  byStage: Map<string, { all: number; kernel: number }>;
  /**
   * the event loop's samples by the innermost JavaScript function on the stack (what it calls
   * natively, the kernel included, counts for it): "name path:line", paths from the project root
   */
  byFunction: Map<string, number>;
}

/** `JS:*'name file:///root/path:line:col` (tier marks * + ^ ~, ' for a named function) → `name path:line` */
function functionOf(frame: string): string {
  frame = frame.replace(/ \([^()]*\)$/, ''); // perf's "(object file)" after the symbol
  const match = /^JS:[*+^~]?'?(\S*) (?:file:\/\/)?(\S+?)(?::\d+)?$/.exec(frame);
  if (!match) return frame.replace(/^JS:/, '');
  const [, name, where] = match as unknown as [string, string, string];
  return `${name || '(anonymous)'} ${where.replace(/^.*?\/(node_modules|src|bench)\//, '$1/')}`;
}

export function attribute(file: string): Attribution {
  const script = execFileSync('perf', ['script', '-i', file, '-F', 'comm,tid,ip,sym,dso'], {
    encoding: 'utf8',
    maxBuffer: 1 << 30,
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  const samples = script.split('\n\n').filter((block) => block.trim() !== '');
  const byStage = new Map<string, { all: number; kernel: number }>();
  const byThread = new Map<string, number>();
  const byFunction = new Map<string, number>();
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
    if (thread === 'MainThread') {
      const js = frames.map((f) => f.split(/\s+/).slice(1).join(' ')).find((f) => f.startsWith('JS:'));
      const name = js === undefined ? '(no JavaScript on the stack)' : functionOf(js);
      byFunction.set(name, (byFunction.get(name) ?? 0) + 1);
    }
    const entry = byStage.get(stage) ?? { all: 0, kernel: 0 };
    entry.all++;
    if (inKernel) entry.kernel++;
    byStage.set(stage, entry);
  }
  return { total: samples.length, byThread, byStage, byFunction };
}
