// Where the gateway's CPU time goes, from a `perf record -g` file (`BENCH_PERF=1 npm run bench`):
// by thread, and by stage (bench/perf-attribution.ts). The column "kernel" says how much of each
// stage's time was spent in the kernel on its behalf.
//
//   node bench/perf-stages.ts bench/results/profiles/<case>.data
import { attribute } from './perf-attribution.ts';

const [file] = process.argv.slice(2);
if (!file) {
  process.stderr.write('usage: node bench/perf-stages.ts <perf.data>\n');
  process.exit(1);
}

const { total, byThread, byStage } = attribute(file);
const pct = (n: number) => `${((100 * n) / total).toFixed(1).padStart(5)}%`;
process.stdout.write(`${file}: ${total} on-CPU samples (task-clock)\n\nby thread:\n`);
for (const [thread, n] of [...byThread].sort((a, b) => b[1] - a[1])) process.stdout.write(`${pct(n)}  ${thread}\n`);
process.stdout.write('\nby stage (each sample once, innermost known frame; kernel = part of it in the kernel):\n');
for (const [stage, n] of [...byStage].sort((a, b) => b[1].all - a[1].all)) {
  process.stdout.write(`${pct(n.all)}  (kernel ${pct(n.kernel).trim()})  ${stage}\n`);
}
