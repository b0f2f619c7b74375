// The functions a thread spent its instructions in, from one callgrind output file: each
// function's own instructions (not its callees'), the JIT-compiled ones named from node's
// /tmp/perf-<pid>.map (written with --perf-basic-prof-only-functions); and its calls into V8's
// runtime. Used by bench/instructions.ts.
import { existsSync, readFileSync } from 'node:fs';

export interface FunctionCost {
  name: string;
  instructions: number;
}

interface CallgrindCosts {
  /** each function's own instructions (not its callees') */
  own: Map<string, number>;
  /** each callee's calls and their inclusive instructions, over every caller */
  called: Map<string, { calls: number; instructions: number }>;
}

/**
 * A callgrind file (format: valgrind's "Callgrind Format") read once. Names are compressed: "(12)
 * name" defines id 12, "(12)" refers to it. The cost line after `calls=` is the call's inclusive
 * cost, not the caller's own.
 */
function readCallgrind(file: string): CallgrindCosts {
  const names = new Map<string, string>();
  const named = (text: string) => {
    const match = /^\((\d+)\)(?: (.*))?$/.exec(text);
    if (!match) return text;
    if (match[2] !== undefined) names.set(match[1]!, match[2]);
    return names.get(match[1]!) ?? text;
  };
  const own = new Map<string, number>();
  const called = new Map<string, { calls: number; instructions: number }>();
  let fn = '';
  let callee = '';
  let calls = -1;
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (line.startsWith('fn=')) fn = named(line.slice(3));
    else if (line.startsWith('cfn=')) callee = named(line.slice(4));
    else if (line.startsWith('calls=')) calls = Number(line.slice(6).split(' ')[0]);
    else if (/^[0-9+\-*]/.test(line)) {
      const instructions = Number(line.split(' ')[1] ?? 0);
      if (calls < 0) {
        own.set(fn, (own.get(fn) ?? 0) + instructions);
        continue;
      }
      const edge = called.get(callee) ?? { calls: 0, instructions: 0 };
      edge.calls += calls;
      edge.instructions += instructions;
      called.set(callee, edge);
      calls = -1;
    }
  }
  return { own, called };
}

/** JIT code's names by address, from node's perf map (empty when node wrote none). */
function perfMap(path: string): { starts: number[]; ends: number[]; names: string[] } {
  const rows = existsSync(path)
    ? readFileSync(path, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((line) => {
          const [address, size, ...name] = line.split(' ');
          return { start: Number.parseInt(address!, 16), end: Number.parseInt(address!, 16) + Number.parseInt(size!, 16), name: name.join(' ') };
        })
        .sort((a, b) => a.start - b.start)
    : [];
  return { starts: rows.map((r) => r.start), ends: rows.map((r) => r.end), names: rows.map((r) => r.name) };
}

/** The `top` functions by their own instructions, JIT code named (and summed by name) where the map knows it. */
export function topFunctions(callgrindFile: string, perfMapPath: string, top: number): FunctionCost[] {
  const map = perfMap(perfMapPath);
  const byName = new Map<string, number>();
  for (const [fn, instructions] of readCallgrind(callgrindFile).own) {
    let name = fn;
    if (/^0x[0-9a-f]+$/.test(fn)) {
      const address = Number.parseInt(fn, 16);
      let low = 0;
      let high = map.starts.length - 1;
      while (low <= high) {
        const mid = (low + high) >> 1;
        if (map.starts[mid]! <= address) low = mid + 1;
        else high = mid - 1;
      }
      if (high >= 0 && address < map.ends[high]!) name = map.names[high]!;
    }
    byName.set(name, (byName.get(name) ?? 0) + instructions);
  }
  return [...byName]
    .map(([name, instructions]) => ({ name, instructions }))
    .sort((a, b) => b.instructions - a.instructions)
    .slice(0, top);
}

export interface RuntimeCalls {
  /** V8's runtime function, without its namespace and signature */
  name: string;
  calls: number;
  /** with what it called: C++ calls and returns pair up, unlike JIT code's */
  instructions: number;
}

/**
 * The calls into V8's C++ runtime (`Runtime_*`), most instructions first. Compiled code calls the
 * runtime for what it could not inline; a runtime function called several times a request points
 * at code compiled without its fast path (on 2026-12-02 node's `nextTick`, in two processes of five
 * under callgrind, defined each tick object's properties through `Runtime_DefineKeyedOwnPropertyInLiteral`).
 */
export function runtimeCalls(callgrindFile: string, top: number): RuntimeCalls[] {
  const byName = new Map<string, RuntimeCalls>();
  for (const [callee, edge] of readCallgrind(callgrindFile).called) {
    const name = /Runtime_(\w+)\(/.exec(callee)?.[1];
    if (name === undefined) continue;
    const entry = byName.get(name) ?? { name, calls: 0, instructions: 0 };
    entry.calls += edge.calls;
    entry.instructions += edge.instructions;
    byName.set(name, entry);
  }
  return [...byName.values()].sort((a, b) => b.instructions - a.instructions).slice(0, top);
}
