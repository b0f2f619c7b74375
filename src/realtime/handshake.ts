import type { IncomingMessage } from 'node:http';
import { checkModelAllowed, type Principal } from '../auth/key-store.ts';
import { invalidRequest, modelNotFound } from '../core/errors.ts';
import { newId } from '../core/ids.ts';
import { modelParam } from '../core/model-param.ts';
import type { Candidate } from '../pipeline/router.ts';
import { SessionBilling } from './billing.ts';
import type { RealtimeGeneration } from '../core/contracts/realtime-codec.ts';
import { readCredentials } from '../dialects/openai/realtime-handshake.ts';
import { ResponseEstimator } from './estimate.ts';
import type { HandshakeDeps } from './deps.ts';
import type { SessionIdentity } from './types.ts';

/** A handshake the gateway accepted: who, which model, where it may go, and its money. */
export interface Admission {
  identity: SessionIdentity;
  principal: Principal;
  candidates: Candidate[];
  clientGeneration: RealtimeGeneration;
  estimator: ResponseEstimator;
  billing: SessionBilling;
  /** frees the key's session slot; called once when the session ends (or never starts) */
  releaseSlot: () => void;
}

/**
 * Admission of `GET /v1/realtime?model=…`, in the order of every HTTP request: authenticate
 * (401), the key's model allowlist and a route for the model (404), the key's session limit and
 * rate limit (429), then the first response's reservation (402). Runs before the upgrade, so a
 * refusal is a plain HTTP answer.
 */
export async function admit(deps: HandshakeDeps, req: IncomingMessage, url: URL, requestId: string): Promise<Admission> {
  const credentials = readCredentials(req);
  const principal = deps.keys.authenticate(credentials.key);
  const model = url.searchParams.get('model');
  if (!model) throw invalidRequest('Missing the "model" query parameter: connect to /v1/realtime?model=<realtime model id>.', 'model', 'missing_model');
  modelParam(model);
  checkModelAllowed(principal, model);
  const candidates = deps.router.candidates(model, 'realtime');
  if (candidates.length === 0) throw modelNotFound(model);
  const kind = deps.catalogue.get(model).kind;
  if (kind !== null && kind !== 'realtime') {
    throw invalidRequest(`The model "${model}" is a ${kind} model and cannot hold a realtime session. Use a realtime model (GET /v1/models lists them).`, 'model', 'model_not_realtime');
  }

  const releaseSlot = deps.realtime.claimSlot(principal.key.id);
  try {
    await deps.limiter.admit(principal.key, 0);
    const identity: SessionIdentity = { requestId, sessionId: newId('rtsess'), principal, model, providerId: null };
    const estimator = new ResponseEstimator(deps.config.defaultMaxOutputTokens);
    const billing = new SessionBilling(deps, identity, estimator);
    await billing.open();
    return { identity, principal, candidates, clientGeneration: credentials.generation, estimator, billing, releaseSlot };
  } catch (error) {
    releaseSlot();
    throw error;
  }
}
