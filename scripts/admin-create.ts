// Creates an operator (admin) user of the web console:
//   npm run admin:create -- --email ops@example.com --password 'a long passphrase' [--name Ops]
// Uses DATABASE_URL (or .env) like the gateway; the schema is brought up to date first. The
// password may also come from MODELGATE_ADMIN_PASSWORD, so it stays out of the process list.
import { parseArgs } from 'node:util';
import { loadConfig } from '../src/config/env.ts';
import { createAdmin } from '../src/console/services/auth.ts';
import { usersRepository } from '../src/store/repositories/console-users.ts';
import { GatewayError } from '../src/core/errors.ts';
import { openStore } from '../src/store/database.ts';

const { values } = parseArgs({
  options: { email: { type: 'string' }, password: { type: 'string' }, name: { type: 'string' } },
});
const password = values.password ?? process.env.MODELGATE_ADMIN_PASSWORD;
if (!values.email || !password) {
  console.error('usage: npm run admin:create -- --email <email> --password <password> [--name <name>]\n(or set MODELGATE_ADMIN_PASSWORD instead of --password)');
  process.exit(2);
}

const config = loadConfig();
const store = await openStore(config.databaseUrl);
try {
  const user = await createAdmin({ users: usersRepository(store.db) }, { email: values.email, password, name: values.name });
  console.log(`Operator ${user.email} created (${user.id}) in ${store.describe}. Sign in at ${config.publicBaseUrl}/console/`);
} catch (error) {
  console.error(error instanceof GatewayError ? `Not created: ${error.message}` : error);
  process.exitCode = 1;
} finally {
  await store.close();
}
