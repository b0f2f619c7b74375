/**
 * The JSON Schema of `generateContent` / `streamGenerateContent` / `countTokens`: the shapes
 * convert-request reads (contents of role + parts, the optional objects beside them). Rules a
 * schema cannot say (a functionResponse answering no call…) are checked there, naming the field.
 */
const part = { type: 'object' } as const;
const content = { type: 'object', properties: { role: { type: 'string' }, parts: { type: 'array', items: part } }, required: ['parts'] } as const;

export const generateSchema = {
  type: 'object',
  properties: {
    contents: { type: 'array', minItems: 1, items: content },
    systemInstruction: { anyOf: [content, { type: 'string' }] },
    tools: { type: 'array', items: { type: 'object' } },
    toolConfig: { type: 'object' },
    generationConfig: { type: 'object' },
    safetySettings: { type: 'array', items: { type: 'object' } },
  },
  required: ['contents'],
} as const;

/** `countTokens` takes the contents, or a whole `generateContentRequest`. */
export const countTokensSchema = {
  type: 'object',
  properties: {
    contents: { type: 'array', items: content },
    generateContentRequest: { type: 'object' },
  },
} as const;

/** `?alt=sse` asks for server-sent events; without it a stream is a JSON array. */
export const streamQuery = { type: 'object', properties: { alt: { type: 'string', enum: ['sse', 'json'] }, key: { type: 'string' } } } as const;
