import { parentPort } from 'node:worker_threads';
import { o200kBuilt } from '../core/tokens/o200k.ts';
import { countTextTokens } from '../core/tokens/token-counter.ts';

/**
 * The tokenizer thread (see off-loop-counter.ts): counts the texts of one request per message.
 * The count that builds the o200k tables leaves ~15 MB of the build's garbage (the rank file's
 * text, each token's base64, the tables' grown-out copies) that V8 would keep for as long as
 * this mostly idle thread lives: once the answer is sent, a full, memory-reducing collection
 * gives it back (`gc`, exposed to this thread alone by TokenThread).
 */
parentPort?.on('message', (message: { id: number; texts: string[] }) => {
  const hadTables = o200kBuilt();
  parentPort!.postMessage({ id: message.id, counts: message.texts.map(countTextTokens) });
  if (!hadTables && o200kBuilt()) globalThis.gc?.({ type: 'major', execution: 'sync', flavor: 'last-resort' });
});
