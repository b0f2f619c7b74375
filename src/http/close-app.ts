import type { FastifyInstance } from 'fastify';

/**
 * Stops taking requests and waits for those in flight (streams included) to end. A keep-alive
 * connection whose response ends during the drain is closed as soon as it is idle, instead of
 * holding the shutdown until the client's keep-alive timeout; after `graceMs` every connection
 * is closed.
 */
export async function closeApp(app: FastifyInstance, graceMs: number): Promise<void> {
  const idle = setInterval(() => app.server.closeIdleConnections(), 100);
  const force = setTimeout(() => app.server.closeAllConnections(), graceMs);
  idle.unref();
  force.unref();
  try {
    await app.close();
  } finally {
    clearInterval(idle);
    clearTimeout(force);
  }
}
