import { parentPort } from 'node:worker_threads';
import { o200kBuilt } from '../core/tokens/o200k.ts';
import { countTextTokens } from '../core/tokens/token-counter.ts';

/**
 * The tokenizer thread (see off-loop-counter.ts): counts the texts of one request per message.
 * The count that builds the o200k tables leaves ~20 MB of the build's garbage (the rank file's
 * text, each token's base64, the tables' grown-out copies). V8 collects it on its own a little
 * later but keeps the freed pages for this mostly idle thread (45 → 30 MB of heap committed, the
 * process's RSS unchanged); once the answer is sent, a memory-reducing collection gives them
 * back (22 MB committed; `gc`, exposed to this thread alone by TokenThread).
 */
parentPort?.on('message', (message: { id: number; texts: string[] }) => {
  const hadTables = o200kBuilt();
  parentPort!.postMessage({ id: message.id, counts: message.texts.map(countTextTokens) });
  if (!hadTables && o200kBuilt()) globalThis.gc?.({ type: 'major', execution: 'sync', flavor: 'last-resort' });
});
