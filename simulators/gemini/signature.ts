// Gemini 3 signs the function calls it makes and refuses them back unsigned; the simulator signs
// with an HMAC of the call so a signature lost or moved on the way through the gateway is caught.
import { createHmac } from 'node:crypto';

export function signCall(name: string, args: unknown): string {
  return createHmac('sha256', 'modelgate-simulator-signature').update(`${name}|${JSON.stringify(args)}`).digest('base64');
}

/** Gemini 3 models require the signatures; older ones neither send nor check them. */
export const signsCalls = (model: string): boolean => model.startsWith('gemini-3');
