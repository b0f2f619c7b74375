// The functions a thread spent its instructions in, from one callgrind output file: each
// function's own instructions (not its callees'), the JIT-compiled ones named from node's
// /tmp/perf-<pid>.map (written with --perf-basic-prof-only-functions). Used by bench/instructions.ts.
import { existsSync, readFileSync } from 'node:fs';

export interface FunctionCost {
  name: string;
  instructions: number;
}

/**
 * Each function's own instructions in a callgrind file (format: valgrind's "Callgrind Format"),
 * and each call's inclusive instructions by caller and callee (`caller\0callee`).
 */
function costsOf(file: string): { self: Map<string, number>; calls: Map<string, number> } {
  const names = new Map<string, string>();
  // "(12) name" defines id 12 of its kind; "(12)" refers to it
  const named = (kind: string, text: string) => {
    const match = /^\((\d+)\)(?: (.*))?$/.exec(text);
    if (!match) return text;
    const key = `${kind}${match[1]}`;
    if (match[2] !== undefined) names.set(key, match[2]);
    return names.get(key) ?? text;
  };
  const self = new Map<string, number>();
  const calls = new Map<string, number>();
  let fn = '';
  let callee = '';
  let callCostNext = false;
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    const eq = line.indexOf('=');
    const key = eq > 0 ? line.slice(0, eq) : '';
    if (key === 'fn') fn = named('fn', line.slice(3));
    else if (key === 'cfn') callee = named('fn', line.slice(4));
    else if (key === 'calls') callCostNext = true;
    else if (/^[0-9+\-*]/.test(line)) {
      const cost = Number(line.split(' ')[1] ?? 0);
      // the line after calls= is the call's inclusive cost, not the caller's own
      if (callCostNext) {
        callCostNext = false;
        const pair = `${fn}\0${callee}`;
        calls.set(pair, (calls.get(pair) ?? 0) + cost);
      } else self.set(fn, (self.get(fn) ?? 0) + cost);
    }
  }
  return { self, calls };
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

/** A function's name: JIT code's address looked up in the perf map. */
function namer(perfMapPath: string): (fn: string) => string {
  const map = perfMap(perfMapPath);
  return (fn) => {
    if (!/^0x[0-9a-f]+$/.test(fn)) return fn;
    const address = Number.parseInt(fn, 16);
    let low = 0;
    let high = map.starts.length - 1;
    while (low <= high) {
      const mid = (low + high) >> 1;
      if (map.starts[mid]! <= address) low = mid + 1;
      else high = mid - 1;
    }
    return high >= 0 && address < map.ends[high]! ? map.names[high]! : fn;
  };
}

const ranked = (byName: Map<string, number>, top: number): FunctionCost[] =>
  [...byName]
    .map(([name, instructions]) => ({ name, instructions }))
    .sort((a, b) => b.instructions - a.instructions)
    .slice(0, top);

/** The `top` functions by their own instructions, JIT code named (and summed by name) where the map knows it. */
export function topFunctions(callgrindFile: string, perfMapPath: string, top: number): FunctionCost[] {
  const name = namer(perfMapPath);
  const byName = new Map<string, number>();
  for (const [fn, instructions] of costsOf(callgrindFile).self) byName.set(name(fn), (byName.get(name(fn)) ?? 0) + instructions);
  return ranked(byName, top);
}

/**
 * The `top` functions by their inclusive instructions: their own and those of every call they
 * made (a function's calls to itself not counted twice; through other functions, recursion is).
 * Names the gateway's code paths that cost most with everything they cause, GC on allocation too.
 */
export function topInclusive(callgrindFile: string, perfMapPath: string, top: number): FunctionCost[] {
  const name = namer(perfMapPath);
  const { self, calls } = costsOf(callgrindFile);
  const byName = new Map<string, number>();
  const add = (fn: string, instructions: number) => byName.set(fn, (byName.get(fn) ?? 0) + instructions);
  for (const [fn, instructions] of self) add(name(fn), instructions);
  for (const [pair, instructions] of calls) {
    const [from, to] = pair.split('\0') as [string, string];
    if (name(from) !== name(to)) add(name(from), instructions);
  }
  return ranked(byName, top);
}

/**
 * The `top` callers of the functions whose name matches `callee`, by the instructions their calls
 * into them took (the callees' own and everything they called in turn): who pays for JSON, say.
 */
export function topCallers(callgrindFile: string, perfMapPath: string, callee: RegExp, top: number): FunctionCost[] {
  const name = namer(perfMapPath);
  const byName = new Map<string, number>();
  for (const [pair, instructions] of costsOf(callgrindFile).calls) {
    const [from, to] = pair.split('\0') as [string, string];
    const caller = name(from);
    if (!callee.test(name(to)) || callee.test(caller)) continue;
    byName.set(caller, (byName.get(caller) ?? 0) + instructions);
  }
  return ranked(byName, top);
}
