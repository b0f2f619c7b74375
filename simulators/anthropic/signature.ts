// Thinking blocks carry a signature the vendor checks when they come back; the simulator signs
// with an HMAC so a block altered or lost on the way through the gateway is refused, as upstream.
import { createHmac } from 'node:crypto';

const SECRET = 'modelgate-simulator-thinking';

export function signThinking(thinking: string): string {
  return createHmac('sha256', SECRET).update(thinking).digest('base64');
}

export function verifyThinking(thinking: string, signature: string): boolean {
  return signThinking(thinking) === signature;
}
