// Summarises a V8 .cpuprofile (from `BENCH_PROFILE=1 npm run bench`, or `node --cpu-prof`):
// the functions with the most self time, and self time grouped by package / source area.
//
//   node bench/profile-top.ts <file.cpuprofile> [top=30]
import { readFileSync } from 'node:fs';

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
}
interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
  startTime: number;
  endTime: number;
}

const [file, topArg] = process.argv.slice(2);
if (!file) {
  process.stderr.write('usage: node bench/profile-top.ts <file.cpuprofile> [top=30]\n');
  process.exit(1);
}
const top = Number(topArg ?? 30);
const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;

const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const selfUs = new Map<number, number>();
for (let i = 0; i < profile.samples.length; i++) {
  const id = profile.samples[i]!;
  selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0));
}

let total = 0;
let idle = 0;
const perFunction = new Map<string, number>();
const perArea = new Map<string, number>();
for (const [id, us] of selfUs) {
  const frame = byId.get(id)!.callFrame;
  total += us;
  if (frame.functionName === '(idle)') {
    idle += us;
    continue;
  }
  const where = shortUrl(frame.url);
  const key = `${frame.functionName || '(anonymous)'}  ${where}${frame.url ? `:${frame.lineNumber + 1}` : ''}`;
  perFunction.set(key, (perFunction.get(key) ?? 0) + us);
  const area = areaOf(frame);
  perArea.set(area, (perArea.get(area) ?? 0) + us);
}

function shortUrl(url: string): string {
  const nm = url.lastIndexOf('node_modules/');
  if (nm >= 0) return url.slice(nm + 'node_modules/'.length);
  const src = url.indexOf('/src/');
  if (src >= 0) return url.slice(src + 1);
  return url.replace(/^file:\/\//, '');
}

function areaOf(frame: CallFrame): string {
  const url = frame.url;
  if (!url) return frame.functionName.startsWith('(') ? frame.functionName : '(native / V8 builtins)';
  const nm = url.lastIndexOf('node_modules/');
  if (nm >= 0) {
    const rest = url.slice(nm + 'node_modules/'.length).split('/');
    return `pkg ${rest[0]!.startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0]}`;
  }
  if (url.startsWith('node:')) return `node ${url.slice(5).split('/')[0]}`;
  const src = url.indexOf('/src/');
  if (src >= 0) return url.slice(src + 1).split('/').slice(0, 3).join('/');
  return url;
}

const busy = total - idle;
const pct = (us: number) => `${((100 * us) / busy).toFixed(1).padStart(5)}%`;
const ms = (us: number) => `${(us / 1000).toFixed(0).padStart(7)} ms`;
process.stdout.write(`${file}\nsampled ${(total / 1e6).toFixed(1)} s, busy ${(busy / 1e6).toFixed(1)} s (idle ${(idle / 1e6).toFixed(1)} s); shares are of busy time\n\n`);
process.stdout.write(`self time by area:\n`);
for (const [area, us] of [...perArea].sort((a, b) => b[1] - a[1]).slice(0, 25)) process.stdout.write(`${ms(us)} ${pct(us)}  ${area}\n`);
process.stdout.write(`\ntop ${top} functions by self time:\n`);
for (const [name, us] of [...perFunction].sort((a, b) => b[1] - a[1]).slice(0, top)) process.stdout.write(`${ms(us)} ${pct(us)}  ${name}\n`);
