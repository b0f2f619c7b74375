import { parentPort } from 'node:worker_threads';
import { countTextTokens } from '../core/tokens/token-counter.ts';

/** The tokenizer thread (see off-loop-counter.ts): counts the texts of one request per message. */
parentPort?.on('message', (message: { id: number; texts: string[] }) => {
  parentPort!.postMessage({ id: message.id, counts: message.texts.map(countTextTokens) });
});
