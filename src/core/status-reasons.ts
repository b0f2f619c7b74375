import { createRequire } from 'node:module';

/**
 * Node's reason phrases (`404` → `Not Found`), for the raw responses written to a socket. Taken
 * through `require`: an ES `import` of node:http builds the module's ESM facade, which reads every
 * export, and its lazy ones (WebSocket, EventSource…) load Node's bundled undici — ~25 ms of every
 * start for a table of strings.
 */
export const STATUS_REASONS: Readonly<Record<number, string | undefined>> = (createRequire(import.meta.url)('node:http') as typeof import('node:http')).STATUS_CODES;
