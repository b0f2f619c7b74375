/**
 * The request fields passed through to an OpenAI-family upstream. Each one is either free (it
 * changes the answer, not the price: sampling, formats, tools the client runs) or a paid feature
 * the chat decoder has checked is priced for the model (`service_tier`, `web_search_options`,
 * audio output through `modalities`/`audio`). Any other top-level field is dropped and named in
 * the `x-modelgate-warning` header: a field the gateway does not know may be one the vendor bills.
 */
const COMMON = ['model', 'stream', 'stream_options', 'temperature', 'top_p', 'presence_penalty', 'frequency_penalty', 'stop', 'max_tokens', 'n', 'seed', 'user', 'logit_bias', 'logprobs'];

/** sampling settings of the OpenAI-compatible servers (vLLM, Ollama…): free */
const COMPATIBLE_SAMPLING = ['top_k', 'min_p', 'repetition_penalty'];

export const CHAT_FIELDS: ReadonlySet<string> = new Set([
  ...COMMON,
  ...COMPATIBLE_SAMPLING,
  'messages',
  'max_completion_tokens',
  'top_logprobs',
  'tools',
  'tool_choice',
  'parallel_tool_calls',
  'functions',
  'function_call',
  'response_format',
  'reasoning_effort',
  'verbosity',
  'metadata',
  'store',
  'prediction',
  'prompt_cache_key',
  'prompt_cache_retention',
  'safety_identifier',
  // the gateway's own fields: `modality` turned into `modalities`, `include_reasoning` removed, by the chat codec
  'modality',
  'include_reasoning',
  // paid: checked against the model's prices by the chat decoder (src/catalogue/paid-features.ts)
  'service_tier',
  'web_search_options',
  'modalities',
  'audio',
]);

export const COMPLETION_FIELDS: ReadonlySet<string> = new Set([...COMMON, ...COMPATIBLE_SAMPLING, 'prompt', 'best_of', 'echo', 'suffix']);
