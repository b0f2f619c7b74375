import { createHash } from 'node:crypto';
import { packToolCallId, ToolCallIdReader } from '../_kit/tool-call-id.ts';

/**
 * Gemini 3 (and thinking 2.5 models) refuse a function call sent back without the
 * `thoughtSignature` it came with. OpenAI-shaped clients only return the tool-call id, so the
 * signature rides in it (see _kit/tool-call-id.ts). Calls without an id from the vendor get a
 * synthesised one, recognisable by its prefix so it is never sent back as the vendor's own.
 */
const SYNTHESISED = 'call_mg';

export function toolCallIdFor(vendorId: string | undefined, signature: string | undefined, seed: string): string {
  // deterministic, so a replayed stream gets the same ids
  const id = vendorId ?? `${SYNTHESISED}${createHash('sha256').update(seed).digest('hex').slice(0, 24)}`;
  return signature ? packToolCallId(id, { signature }) : id;
}

/** The vendor's id (undefined when the gateway made it up) and the signature to send back; `ids` reads one request's ids. */
export function readToolCallId(toolCallId: string, ids = new ToolCallIdReader()): { vendorId: string | undefined; signature: string | undefined; id: string } {
  const { id, state } = ids.read(toolCallId);
  const signature = typeof state?.signature === 'string' ? state.signature : undefined;
  return { id, vendorId: vendorIdOf(id), signature };
}

/** The vendor's id alone (a tool result names the call it answers; no signature goes with it). */
export function readVendorId(toolCallId: string, ids: ToolCallIdReader): string | undefined {
  return vendorIdOf(ids.idOf(toolCallId));
}

function vendorIdOf(id: string): string | undefined {
  return id.startsWith(SYNTHESISED) ? undefined : id;
}
