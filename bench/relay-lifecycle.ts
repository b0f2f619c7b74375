// The start and stop the bench's reference relays share (bench/bare-relay.ts, bench/floor-relay.ts):
// listen on loopback, print {"port", "pid"} once listening, and on SIGTERM or SIGINT close the
// server, its connections and the upstream pool, then exit.
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Pool } from 'undici';

export function runRelay(server: Server, pool: Pool, port = 0): void {
  server.keepAliveTimeout = 65_000;
  server.listen(port, '127.0.0.1', () => {
    process.stdout.write(`${JSON.stringify({ port: (server.address() as AddressInfo).port, pid: process.pid })}\n`);
  });
  const stop = (): void => {
    server.close();
    server.closeAllConnections();
    void pool.close().then(() => process.exit(0));
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}
