/**
 * JSON Schemas of the JSON-only media endpoints (types and the specification's fixed ranges;
 * per-model rules are checked in the decoders, from the catalogue's capabilities).
 */

import { modelSchema as model } from '../_kit/schema-bounds.ts';

export const speechSchema = {
  type: 'object',
  required: ['model', 'input', 'voice'],
  properties: {
    model,
    input: { type: 'string', minLength: 1, maxLength: 4096 },
    voice: { type: 'string', minLength: 1 },
    response_format: { type: 'string', enum: ['mp3', 'opus', 'aac', 'flac', 'wav', 'pcm'] },
    speed: { type: 'number', minimum: 0.25, maximum: 4 },
    instructions: { type: 'string' },
  },
} as const;

export const imageGenerationSchema = {
  type: 'object',
  required: ['model', 'prompt'],
  properties: {
    model,
    prompt: { type: 'string', minLength: 1, maxLength: 4000 },
    n: { type: ['integer', 'null'], minimum: 1, maximum: 10 },
    size: { type: ['string', 'null'] },
    quality: { type: ['string', 'null'] },
    style: { type: ['string', 'null'] },
    response_format: { type: ['string', 'null'], enum: ['url', 'b64_json', null] },
    user: { type: 'string' },
  },
} as const;

export const moderationSchema = {
  type: 'object',
  required: ['input'],
  properties: {
    model,
    input: { type: ['string', 'array'], minItems: 1, maxItems: 32 },
  },
} as const;

export const rerankSchema = {
  type: 'object',
  required: ['model', 'query', 'documents'],
  properties: {
    model,
    query: { type: 'string', minLength: 1 },
    documents: { type: 'array', minItems: 1, maxItems: 1000, items: { type: ['string', 'object'] } },
    top_n: { type: 'integer', minimum: 1, maximum: 1000 },
    return_documents: { type: 'boolean' },
  },
} as const;

export const videoGenerationSchema = {
  type: 'object',
  required: ['model', 'prompt'],
  properties: {
    model,
    prompt: { type: 'string', minLength: 1, maxLength: 10000 },
    duration: { type: 'integer', minimum: 1, maximum: 600 },
    size: { type: 'string' },
  },
} as const;

/** `POST /v1/videos` sent as JSON (the job API; a multipart form is read field by field by the route). */
export const videoJobSchema = {
  type: 'object',
  properties: {
    model,
    prompt: { type: 'string', minLength: 1, maxLength: 10000 },
    seconds: { type: ['string', 'integer'], maxLength: 8, minimum: 1, maximum: 600 },
    size: { type: 'string', maxLength: 32 },
  },
} as const;

/** `POST /v1/images/edits|variations` sent as JSON (the image as Base64); a multipart form is read by the route. */
export const imageEditJsonSchema = {
  type: 'object',
  required: ['model'],
  properties: { model },
} as const;

/** `GET /v1/videos`: one value each (a repeated parameter arrives as an array), the page within the API's range. */
export const videoListQuery = {
  type: 'object',
  properties: {
    after: { type: 'string', maxLength: 64 },
    limit: { type: 'integer', minimum: 1, maximum: 100 },
    order: { type: 'string', enum: ['asc', 'desc'] },
  },
} as const;
