import type { Dialect } from '../core/contracts/dialect.ts';
import { googleDialect } from './google/routes.ts';
import { messagesDialect } from './messages/routes.ts';
import { openaiDialect } from './openai/routes.ts';
import { responsesDialect } from './responses/routes.ts';

/** Every client dialect, one line each: the HTTP layer mounts their routes and picks their error envelope from here. */
export const dialects: readonly Dialect[] = [openaiDialect, messagesDialect, googleDialect, responsesDialect];

/** The OpenAI wire is the default: its envelope answers every path no other dialect claims. */
export const fallbackDialect: Dialect = openaiDialect;
