// Two gateway instances sharing one PostgreSQL schema and Redis, as several instances run in
// production: A serves the simulator-backed provider, B only shares its database and Redis.
import { Redis } from 'ioredis';
import { postgresDatabase } from './databases.ts';
import { startTestGateway, type TestGatewayOptions, type TestGateway } from './gateway.ts';

export const REDIS_URL = 'redis://127.0.0.1:6379';

export interface GatewayPair {
  a: TestGateway;
  b: TestGateway;
  /** a client of the shared Redis, to look at what the instances keep there */
  redis: Redis;
  /** stops both instances and drops the schema */
  close(): Promise<void>;
}

export async function startGatewayPair(prefix: string, options: Pick<TestGatewayOptions, 'models' | 'simulator'> = {}): Promise<GatewayPair> {
  const database = postgresDatabase(prefix);
  const env = { REDIS_URL };
  const a = await startTestGateway({ ...options, databaseUrl: database.url, env });
  const b = await startTestGateway({ databaseUrl: database.url, env, simulator: false });
  const redis = new Redis(REDIS_URL);
  return {
    a,
    b,
    redis,
    async close() {
      await b.close();
      await a.close();
      redis.disconnect();
      await database.drop();
    },
  };
}
