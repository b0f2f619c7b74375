// What every media endpoint is handed and answers, and the `[[sim:…]]` directives it reads. Its own
// file so the endpoints and the media router (media.ts) that calls them import it without a circle.
import type { SimForm } from '../_kit/multipart.ts';
import type { SimulatedError } from './errors.ts';
import type { ScenarioPlan } from './scenarios.ts';

export type MediaReply =
  | { kind: 'json'; body: unknown }
  | { kind: 'bytes'; contentType: string; data: Buffer }
  | { kind: 'error'; error: SimulatedError };

export interface MediaRequest {
  /** JSON body, or undefined for multipart */
  json: Record<string, unknown> | undefined;
  form: SimForm | undefined;
  plan: ScenarioPlan;
  created: number;
  /** `http://127.0.0.1:<port>/v1` */
  baseUrl: string;
}

/** `[[sim:name]]` or `[[sim:name=N]]` in a text. */
export function mediaDirective(text: string, name: string): number | true | undefined {
  const match = new RegExp(`\\[\\[sim:${name}(?:=(\\d+))?\\]\\]`).exec(text);
  if (!match) return undefined;
  return match[1] === undefined ? true : Number(match[1]);
}
