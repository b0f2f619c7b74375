// Readers for upstream JSON, which enters as `unknown`: each returns the value when it has the
// expected type and a neutral fallback otherwise, so a vendor adding or dropping a field never
// throws inside a codec.
import { bufferView } from '../../core/buffer-view.ts';

export type JsonObject = Record<string, unknown>;

export function asObject(value: unknown): JsonObject | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as JsonObject) : undefined;
}

export function asArray(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

export function asString(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

export function asNumber(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

/** A non-negative integer count; anything else is 0. */
export function asCount(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? Math.round(value) : 0;
}

/** Parses JSON text; undefined when it is not JSON. */
export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

export function parseJsonBytes(bytes: Uint8Array): unknown {
  return parseJson(utf8Text(bytes));
}

/** The bytes as UTF-8 text, read in place (Buffer.from(bytes) would copy them first). */
export function utf8Text(bytes: Uint8Array): string {
  return bufferView(bytes).toString('utf8');
}
