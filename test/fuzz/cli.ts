// `npm run fuzz -- --seed N --runs M [--batch B] [--path P] [--no-shrink] [--survey]`: a longer fuzz
// run than the test's. A failure prints its seed, the replay path and the shrunk cases; --survey
// runs to the end and prints every distinct failure once.
import { parseArgs } from 'node:util';
import { fuzz, printable, summary } from './run.ts';
import { startWorld } from './world.ts';

const { values } = parseArgs({
  options: {
    seed: { type: 'string', default: String(Date.now() % 2 ** 31) },
    runs: { type: 'string', default: '1000' },
    batch: { type: 'string', default: '64' },
    concurrency: { type: 'string', default: '16' },
    path: { type: 'string' },
    'no-shrink': { type: 'boolean', default: false },
    survey: { type: 'boolean', default: false },
  },
});

const world = await startWorld();
try {
  const report = await fuzz(world, {
    seed: Number(values.seed),
    runs: Number(values.runs),
    batchSize: Number(values.batch),
    concurrency: Number(values.concurrency),
    ...(values.path && { path: values.path }),
    shrink: !values['no-shrink'],
    survey: values.survey,
  });
  console.log(summary(report));
  console.log('time by route (ms):', Object.entries(report.timeByRoute).sort((a, b) => b[1] - a[1]).map(([r, ms]) => `${r} ${ms}`).join('; '));
  for (const [key, { count, example }] of report.distinct) {
    const at = example.route === '(batch)' ? '' : `\n  case: ${printable(example.case)}`;
    console.log(`\n[${count}×] ${key}\n  ${example.detail}${example.logLine ? `\n  log: ${example.logLine}` : ''}${at}`);
  }
  if (report.failure) console.log(`\n${report.failure}`);
  process.exitCode = report.ok && report.distinct.size === 0 ? 0 : 1;
} finally {
  await world.close();
}
