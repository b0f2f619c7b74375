/** Bounds every dialect's request schema shares. */

/** The largest token count a client may ask for: any larger cap is refused (it could only reach pricing as a huge or infinite hold). */
export const MAX_TOKENS_BOUND = 2_147_483_647;
/** Messages in one conversation. */
export const MAX_MESSAGES = 10_000;

export const modelSchema = { type: 'string', minLength: 1, maxLength: 256 } as const;
