import type { ImageResult } from '../../core/ir/media.ts';
import type { MediaLinks } from '../../core/contracts/media-links.ts';
import type { ImageResponseFormat } from './decode-images.ts';

/**
 * The OpenAI images answer: `{created, data: [{url | b64_json, revised_prompt?}]}` plus the
 * vendor's extra fields. A `url` the gateway serves itself: the bytes are stored and handed out
 * under a signed link that expires with them.
 */
export async function encodeImages<Stored>(result: ImageResult, format: ImageResponseFormat, media: MediaLinks<Stored>, accountId: string): Promise<string> {
  const data = await Promise.all(
    result.images.map(async (image) => {
      const item: Record<string, unknown> = {};
      if (format === 'b64_json' && image.b64 !== undefined) item.b64_json = image.b64;
      else if (image.b64 !== undefined) {
        const row = await media.save({ accountId, kind: 'image', contentType: image.mimeType, data: Buffer.from(image.b64, 'base64') });
        item.url = media.link(row);
      } else item.url = image.url;
      if (image.revisedPrompt !== undefined) item.revised_prompt = image.revisedPrompt;
      return item;
    }),
  );
  return JSON.stringify({ ...result.extra, created: result.created, data });
}
