// A gateway with its console, plus shortcuts: an operator user and registered customers,
// each with their own ConsoleClient (cookie jar + CSRF token).
import assert from 'node:assert/strict';
import { createAdmin } from '../../src/console/services/auth.ts';
import { usersRepository } from '../../src/store/repositories/console-users.ts';
import { ConsoleClient, uniqueEmail } from './console-client.ts';
import { startTestGateway, type TestGateway, type TestGatewayOptions } from './gateway.ts';

export const PASSWORD = 'correct horse battery';

export interface ConsoleCustomer {
  client: ConsoleClient;
  email: string;
  accountId: string;
  userId: string;
}

export interface ConsoleGateway extends TestGateway {
  /** a signed-in operator (created the way `npm run admin:create` does) */
  operator(): Promise<ConsoleClient & { email: string }>;
  /** registers through the console API; credits `creditUsd` through the admin API */
  registerCustomer(creditUsd?: number): Promise<ConsoleCustomer>;
}

export async function startConsoleGateway(options: TestGatewayOptions = {}): Promise<ConsoleGateway> {
  // every test signs in from 127.0.0.1: the per-address sign-in limit would be reached
  const tg = await startTestGateway({ ...options, env: { MODELGATE_LOGIN_MAX_PER_IP: '100000', ...options.env } });
  return Object.assign(tg, {
    async operator() {
      const email = uniqueEmail('ops');
      await createAdmin({ users: usersRepository(tg.gateway.store.db) }, { email, password: PASSWORD, name: 'Operator' });
      const client = new ConsoleClient(tg.origin);
      const res = await client.login(email, PASSWORD);
      assert.equal(res.status, 200, res.text);
      return Object.assign(client, { email });
    },
    async registerCustomer(creditUsd = 0) {
      const client = new ConsoleClient(tg.origin);
      const email = uniqueEmail('customer');
      const res = await client.register(email, PASSWORD);
      assert.equal(res.status, 201, res.text);
      const accountId = res.body.user.account_id as string;
      if (creditUsd !== 0) {
        const credit = await tg.admin('POST', `/admin/accounts/${accountId}/credit`, { amount_usd: creditUsd });
        assert.equal(credit.status, 200);
      }
      return { client, email, accountId, userId: res.body.user.id as string };
    },
  });
}
