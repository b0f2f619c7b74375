/**
 * The JSON Schema of `POST /v1beta/models/{model}:predict`: the shapes decode-predict reads
 * (instances of `{prompt}` objects, parameters an object). Its rules — one instance, the
 * prompt's tokens, the parameters' values per model — are checked there, each naming its field.
 */
export const predictSchema = {
  type: 'object',
  properties: {
    instances: { type: 'array', maxItems: 16, items: { type: 'object', properties: { prompt: { type: 'string' } } } },
    parameters: { type: 'object' },
  },
} as const;
