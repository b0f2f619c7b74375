/**
 * The GenAI semantic conventions' attribute names. They are still "incubating", and the
 * conventions package asks users to copy such names rather than import its incubating entry.
 */
export const GEN_AI_OPERATION_NAME = 'gen_ai.operation.name';
export const GEN_AI_SYSTEM = 'gen_ai.system';
/** the newer name of gen_ai.system; both are set */
export const GEN_AI_PROVIDER_NAME = 'gen_ai.provider.name';
export const GEN_AI_REQUEST_MODEL = 'gen_ai.request.model';
export const GEN_AI_REQUEST_MAX_TOKENS = 'gen_ai.request.max_tokens';
export const GEN_AI_REQUEST_STREAM = 'gen_ai.request.stream';
export const GEN_AI_RESPONSE_MODEL = 'gen_ai.response.model';
export const GEN_AI_USAGE_INPUT_TOKENS = 'gen_ai.usage.input_tokens';
export const GEN_AI_USAGE_OUTPUT_TOKENS = 'gen_ai.usage.output_tokens';
export const GEN_AI_USAGE_CACHE_READ_INPUT_TOKENS = 'gen_ai.usage.cache_read.input_tokens';

/** the gateway's own */
export const MODELGATE_REQUEST_ID = 'modelgate.request_id';
export const MODELGATE_KEY_ID = 'modelgate.key_id';
export const MODELGATE_ACCOUNT_ID = 'modelgate.account_id';
export const MODELGATE_PROVIDER_ID = 'modelgate.provider_id';
export const MODELGATE_ATTEMPT = 'modelgate.attempt';
export const MODELGATE_COST_USD = 'modelgate.cost_usd';
/** `charged` or `released` (nothing delivered, nothing billed) */
export const MODELGATE_SETTLEMENT = 'modelgate.settlement';

/** The pipeline's operation as the conventions name it (their well-known values where one fits). */
export function genAiOperation(operation: string): string {
  switch (operation) {
    case 'chat':
    case 'messages':
      return 'chat';
    case 'completions':
      return 'text_completion';
    default:
      return operation;
  }
}

