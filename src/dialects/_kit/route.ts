import type { Static } from 'typebox';
import type { DialectRoute } from '../../core/contracts/dialect.ts';

/** A dialect's route, its body typed by its own JSON Schema (as the HTTP layer's TypeBox provider types it). */
export function route<const Schema extends object>(schema: Schema, spec: Omit<DialectRoute<Static<Schema>>, 'schema'>): DialectRoute {
  return { schema, ...spec };
}
