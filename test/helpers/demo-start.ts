import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import type { TestContext } from 'node:test';

export interface DemoStart {
  child: ChildProcess;
  /** the demo key and the chat URL of the printed curl */
  key: string;
  url: string;
  /** stdout and stderr so far */
  output(): string;
}

/**
 * What a new user does: `npm start` (its entry, src/start.mjs) on an empty SQLite database in
 * `dir`, in demo mode, until the banner prints the demo key and the curl. A failed test leaves no
 * gateway running (its pipes would keep the suite alive).
 */
export async function startDemo(t: TestContext, dir: string): Promise<DemoStart> {
  const child = spawn(process.execPath, ['src/start.mjs'], {
    env: { ...process.env, PORT: '0', DATABASE_URL: `sqlite:${join(dir, 'modelgate.db')}`, MODELGATE_DEMO: 'auto', MODELGATE_MEDIA_DIR: join(dir, 'media'), LOG_LEVEL: 'info' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  t.after(() => {
    if (child.exitCode === null) child.kill('SIGKILL');
  });
  let output = '';
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const { key, url } = await new Promise<{ key: string; url: string }>((resolve, reject) => {
    child.stdout!.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const key = /Demo key \(shown once\): (sk-[A-Za-z0-9]+)/.exec(output)?.[1];
      const url = /curl (http:\/\/127\.0\.0\.1:\d+\/v1\/chat\/completions)/.exec(output)?.[1];
      if (key && url) resolve({ key, url });
    });
    child.once('exit', (code) => reject(new Error(`exited with ${code} before the banner:\n${output}`)));
  });
  return { child, key, url, output: () => output };
}
