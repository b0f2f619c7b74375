import type { ImageResult } from '../../core/ir/media.ts';

/**
 * The `predictions` answer in one of two forms (contract §3): the specification's, where
 * `bytesBase64Encoded` is `true` and the bytes sit in `image.imageBytes`; or, for a client that
 * authenticated the way Google's own library does (`x-goog-api-key`), the vendor's, where
 * `bytesBase64Encoded` is the Base64 string itself — the form that library reads.
 */
export function encodePredictions(result: ImageResult, vendorForm: boolean): string {
  const predictions = result.images
    .filter((image) => image.b64 !== undefined)
    .map((image) =>
      vendorForm
        ? { bytesBase64Encoded: image.b64, mimeType: image.mimeType }
        : { bytesBase64Encoded: true, image: { imageBytes: image.b64, mimeType: image.mimeType }, mimeType: image.mimeType },
    );
  return JSON.stringify({ predictions });
}
