// The functions a thread spent its instructions in, from one callgrind output file: each
// function's own instructions (not its callees'), the JIT-compiled ones named from node's
// /tmp/perf-<pid>.map (written with --perf-basic-prof-only-functions); and its calls into V8's
// runtime. Used by bench/instructions.ts.
import { existsSync, readFileSync } from 'node:fs';

export interface FunctionCost {
  name: string;
  instructions: number;
}

/** Names as a callgrind file compresses them: "(12) name" defines id 12 of its kind, "(12)" refers to it. */
function nameTable(): (kind: string, text: string) => string {
  const names = new Map<string, string>();
  return (kind, text) => {
    const match = /^\((\d+)\)(?: (.*))?$/.exec(text);
    if (!match) return text;
    const key = `${kind}${match[1]}`;
    if (match[2] !== undefined) names.set(key, match[2]);
    return names.get(key) ?? text;
  };
}

/** Each function's own instructions in a callgrind file (format: valgrind's "Callgrind Format"). */
function selfCosts(file: string): Map<string, number> {
  const named = nameTable();
  const costs = new Map<string, number>();
  let fn = '';
  let callCostNext = false;
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    const eq = line.indexOf('=');
    const key = eq > 0 ? line.slice(0, eq) : '';
    if (key === 'fn') fn = named('fn', line.slice(3));
    else if (key === 'cfn') named('fn', line.slice(4));
    else if (key === 'calls') callCostNext = true;
    else if (/^[0-9+\-*]/.test(line)) {
      // the line after calls= is the call's inclusive cost, not the caller's own
      if (callCostNext) callCostNext = false;
      else costs.set(fn, (costs.get(fn) ?? 0) + Number(line.split(' ')[1] ?? 0));
    }
  }
  return costs;
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
  for (const [fn, instructions] of selfCosts(callgrindFile)) {
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
  const named = nameTable();
  const byName = new Map<string, RuntimeCalls>();
  let callee = '';
  let calls = -1;
  for (const line of readFileSync(callgrindFile, 'utf8').split('\n')) {
    if (line.startsWith('cfn=')) callee = named('fn', line.slice(4));
    else if (line.startsWith('fn=')) named('fn', line.slice(3));
    else if (line.startsWith('calls=')) calls = Number(line.slice(6).split(' ')[0]);
    else if (calls >= 0 && /^[0-9+\-*]/.test(line)) {
      const runtime = /Runtime_(\w+)\(/.exec(callee)?.[1];
      if (runtime !== undefined) {
        const entry = byName.get(runtime) ?? { name: runtime, calls: 0, instructions: 0 };
        entry.calls += calls;
        entry.instructions += Number(line.split(' ')[1] ?? 0);
        byName.set(runtime, entry);
      }
      calls = -1;
    }
  }
  return [...byName.values()].sort((a, b) => b.instructions - a.instructions).slice(0, top);
}
