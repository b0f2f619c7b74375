import type { CatalogueModel } from '../../core/contracts/catalogue-model.ts';

/** The verbs a model of each kind answers here, as Google lists them. */
const METHODS: Readonly<Record<string, readonly string[]>> = {
  chat: ['generateContent', 'streamGenerateContent', 'countTokens'],
  embedding: ['embedContent', 'batchEmbedContents'],
  image: ['predict'],
};

/** A model in Google's shape (`GET /{v1beta|v1}/models/{model}`): `name` is `models/{id}`. */
export function googleModel(model: CatalogueModel): Record<string, unknown> {
  return {
    name: `models/${model.id}`,
    baseModelId: model.id,
    version: '001',
    displayName: model.id,
    description: `${model.id}, served by modelgate`,
    ...(model.maxOutputTokens !== null && { outputTokenLimit: model.maxOutputTokens }),
    supportedGenerationMethods: METHODS[model.kind ?? 'chat'] ?? [],
  };
}

/** `GET /{v1beta|v1}/models`: a page of models, `nextPageToken` the offset of the next. */
export function googleModelList(models: readonly CatalogueModel[], pageSize: number, pageToken: string | undefined): Record<string, unknown> {
  const start = Math.max(0, Number.parseInt(pageToken ?? '0', 10) || 0);
  const page = models.slice(start, start + pageSize);
  const next = start + pageSize < models.length ? String(start + pageSize) : undefined;
  return { models: page.map(googleModel), ...(next !== undefined && { nextPageToken: next }) };
}
