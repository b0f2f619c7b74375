// The functions a thread spent its instructions in, from one callgrind output file: each
// function's own instructions (not its callees'), the JIT-compiled ones named from node's
// /tmp/perf-<pid>.map (written with --perf-basic-prof-only-functions). Used by bench/instructions.ts.
import { existsSync, readFileSync } from 'node:fs';

export interface FunctionCost {
  name: string;
  instructions: number;
}

/** Each function's own instructions in a callgrind file (format: valgrind's "Callgrind Format"). */
function selfCosts(file: string): Map<string, number> {
  const names = new Map<string, string>();
  // "(12) name" defines id 12 of its kind; "(12)" refers to it
  const named = (kind: string, text: string) => {
    const match = /^\((\d+)\)(?: (.*))?$/.exec(text);
    if (!match) return text;
    const key = `${kind}${match[1]}`;
    if (match[2] !== undefined) names.set(key, match[2]);
    return names.get(key) ?? text;
  };
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
