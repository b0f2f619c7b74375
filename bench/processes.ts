// Every process the benchmark starts is tracked here, so that it is stopped by its PID when the
// run ends, fails or is interrupted — a stray gateway or wrk would disturb the next benchmark.
import { spawnSync, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import { fail } from './settings.ts';
import { removeTmp, tmp } from './workspace.ts';

const children = new Set<ChildProcess>();

export function track(child: ChildProcess): ChildProcess {
  children.add(child);
  child.once('exit', () => children.delete(child));
  return child;
}

export function alive(child: ChildProcess): boolean {
  return child.exitCode === null && child.signalCode === null;
}

/** SIGTERM, then SIGKILL after `graceMs`; resolves once the process is gone. */
export async function stop(child: ChildProcess, graceMs = 10_000, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
  if (!alive(child)) return;
  const exited = once(child, 'exit');
  child.kill(signal);
  const timer = sleep(graceMs).then(() => 'timeout' as const);
  if ((await Promise.race([exited.then(() => 'exited' as const), timer])) === 'timeout' && alive(child)) {
    child.kill('SIGKILL');
    await exited;
  }
}

/** Stops every process still tracked. */
export async function stopAll(graceMs = 10_000): Promise<void> {
  await Promise.all([...children].map((c) => stop(c, graceMs)));
}

// last resort: whatever is still running when this process goes away is killed by its PID
process.on('exit', () => {
  for (const child of children) if (alive(child)) child.kill('SIGKILL');
});
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    process.stderr.write(`\nbench: ${signal}, stopping every process it started\n`);
    void stopAll(2000).finally(() => {
      removeTmp();
      process.exit(130);
    });
  });
}

export function requireTool(tool: string, installHint: string): void {
  const probe = spawnSync(tool, ['--version'], { stdio: 'ignore' });
  if (probe.error) fail(`\`${tool}\` is not installed. ${installHint}`);
}

/** The environment of a started process: nothing of this shell's but PATH and HOME, so no stray setting leaks into a measurement. */
export function cleanEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  return { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? tmp, ...extra };
}

/**
 * The first JSON line a server prints on stdout (its address) once it listens; lines before it (a
 * diagnostic flag's output, such as --trace-gc-nvp) are skipped. Stops reading there: a later
 * reader (a trace's collector) attaches its own listener.
 */
export function firstLine(child: ChildProcess, name: string): Promise<string> {
  return new Promise<string>((resolveLine, reject) => {
    let buffered = '';
    child.stdout!.setEncoding('utf8');
    const read = (text: string) => {
      buffered += text;
      for (let newline = buffered.indexOf('\n'); newline >= 0; newline = buffered.indexOf('\n')) {
        const line = buffered.slice(0, newline);
        buffered = buffered.slice(newline + 1);
        if (!line.startsWith('{')) continue;
        child.stdout!.off('data', read);
        resolveLine(line);
        return;
      }
    };
    child.stdout!.on('data', read);
    child.once('exit', (code) => reject(new Error(`${name} exited (code ${code}) before listening`)));
  });
}

/** Waits for a process to exit, with all it printed on stdout and stderr by then. */
export async function outputOf(child: ChildProcess): Promise<{ code: number | null; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  child.stdout!.setEncoding('utf8').on('data', (t: string) => (stdout += t));
  child.stderr!.setEncoding('utf8').on('data', (t: string) => (stderr += t));
  const [code] = (await once(child, 'exit')) as [number | null];
  return { code, stdout, stderr };
}
