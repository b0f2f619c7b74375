import type { Kysely, Selectable } from 'kysely';
import type { ConsoleUsersTable, UserRole } from '../console-schema.ts';
import type { Database } from '../schema.ts';

export interface User {
  id: string;
  email: string;
  name: string;
  role: UserRole;
  accountId: string | null;
  disabled: boolean;
  createdAt: number;
}

function toUser(row: Selectable<ConsoleUsersTable>): User {
  return {
    id: row.id,
    email: row.email,
    name: row.name,
    role: row.role,
    accountId: row.account_id,
    disabled: row.disabled === 1,
    createdAt: row.created_at,
  };
}

export const normaliseEmail = (email: string): string => email.trim().toLowerCase();

export function usersRepository(db: Kysely<Database>) {
  return {
    async insert(input: { id: string; email: string; name: string; passwordHash: string; role: UserRole; accountId: string | null }): Promise<User> {
      const now = Date.now();
      const row = await db
        .insertInto('console_users')
        .values({
          id: input.id,
          email: normaliseEmail(input.email),
          name: input.name,
          password_hash: input.passwordHash,
          role: input.role,
          account_id: input.accountId,
          disabled: 0,
          created_at: now,
          updated_at: now,
        })
        .returningAll()
        .executeTakeFirstOrThrow();
      return toUser(row);
    },

    async byEmail(email: string): Promise<(User & { passwordHash: string }) | undefined> {
      const row = await db.selectFrom('console_users').selectAll().where('email', '=', normaliseEmail(email)).executeTakeFirst();
      return row && { ...toUser(row), passwordHash: row.password_hash };
    },

    async get(id: string): Promise<(User & { passwordHash: string }) | undefined> {
      const row = await db.selectFrom('console_users').selectAll().where('id', '=', id).executeTakeFirst();
      return row && { ...toUser(row), passwordHash: row.password_hash };
    },

    async byAccount(accountId: string): Promise<User[]> {
      const rows = await db.selectFrom('console_users').selectAll().where('account_id', '=', accountId).orderBy('created_at').execute();
      return rows.map(toUser);
    },

    async update(id: string, patch: { name?: string; passwordHash?: string; disabled?: boolean; role?: UserRole }): Promise<void> {
      await db
        .updateTable('console_users')
        .set({
          ...(patch.name !== undefined && { name: patch.name }),
          ...(patch.passwordHash !== undefined && { password_hash: patch.passwordHash }),
          ...(patch.disabled !== undefined && { disabled: patch.disabled ? 1 : 0 }),
          ...(patch.role !== undefined && { role: patch.role }),
          updated_at: Date.now(),
        })
        .where('id', '=', id)
        .execute();
    },

    async countAdmins(): Promise<number> {
      const row = await db.selectFrom('console_users').select((eb) => eb.fn.countAll<number>().as('n')).where('role', '=', 'admin').executeTakeFirstOrThrow();
      return Number(row.n);
    },
  };
}

export type UsersRepository = ReturnType<typeof usersRepository>;
