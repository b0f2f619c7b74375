// GET /v1/models and /v1/models/{id} (protocols.md 2.3): a fixed catalogue.
import { openAIError, type SimulatedError } from './errors.ts';

export interface ModelObject {
  id: string;
  object: 'model';
  created: number;
  owned_by: string;
}

const model = (id: string, created: number): ModelObject => ({ id, object: 'model', created, owned_by: 'openai' });

const MODELS: readonly ModelObject[] = [
  model('gpt-4o', 1715367049),
  model('gpt-4o-mini', 1721172741),
  model('gpt-4.1', 1744316542),
  model('gpt-4.1-mini', 1744318173),
  model('gpt-3.5-turbo', 1677610602),
  model('gpt-3.5-turbo-instruct', 1692901427),
  model('text-embedding-3-small', 1705948997),
  model('text-embedding-3-large', 1705953180),
  model('text-embedding-ada-002', 1671217299),
];

export function listModels(): { object: 'list'; data: readonly ModelObject[] } {
  return { object: 'list', data: MODELS };
}

export function retrieveModel(id: string): ModelObject | SimulatedError {
  return (
    MODELS.find((model) => model.id === id) ??
    openAIError(404, `The model '${id}' does not exist or you do not have access to it.`, 'invalid_request_error', 'model', 'model_not_found')
  );
}
