// A preload (`node --import ./test/helpers/loaded-modules.ts …`) that records every module the
// process loads, ES modules and require()d files alike; on SIGWINCH it writes their URLs as one
// line on stderr: `loaded-modules ["file:///…", "node:fs", …]`.
import { registerHooks } from 'node:module';

const loaded = new Set<string>();
registerHooks({
  load(url, context, nextLoad) {
    loaded.add(url);
    return nextLoad(url, context);
  },
});
process.on('SIGWINCH', () => process.stderr.write(`loaded-modules ${JSON.stringify([...loaded])}\n`));
