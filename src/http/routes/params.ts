/** Route generics for path parameters (Fastify gives them as text; no schema checks them). */
export type IdParams = { Params: { id: string } };

/** The rest of the path after a wildcard (`/v1/models/*`): model ids may contain slashes. */
export type WildcardParams = { Params: { '*': string } };
