import type { ErrorDialect } from '../../core/contracts/error-dialect.ts';

/** The OpenAI envelope `{error: {message, type, param, code}}`: every path no other dialect claims (contract §3). */
export const openaiErrorDialect: ErrorDialect = {
  name: 'openai',
  matches: () => true,
  render: (error) => ({ error: { message: error.message, type: error.type, param: error.param, code: error.code } }),
};
