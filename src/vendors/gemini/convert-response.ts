import type { IrChoice, IrCompletion, IrOutputImage, IrToolCall } from '../../core/ir/chat.ts';
import type { TargetInfo } from '../../core/contracts/vendor-codec.ts';
import { asArray, asNumber, asObject, asString, type JsonObject } from '../_kit/read.ts';
import { mapFinishReason } from './map-finish-reason.ts';
import { usageToIr } from './map-usage.ts';
import { toolCallIdFor } from './signature-state.ts';

/**
 * The text, function calls and drawn images of one candidate's parts, and the text of its thought
 * parts (`reasoning`: the thought summaries a request with `includeThoughts` gets). Thought parts
 * are otherwise skipped (with image output, the interim images a model draws while thinking are
 * thought parts too); an image is an `inlineData` part with an image type, returned as a data URL.
 */
export function readParts(content: unknown, seed: string, firstCall = 0): { text: string; reasoning: string; calls: IrToolCall[]; images: IrOutputImage[] } {
  let text = '';
  let reasoning = '';
  const calls: IrToolCall[] = [];
  const images: IrOutputImage[] = [];
  for (const raw of asArray(asObject(content)?.parts)) {
    const part = asObject(raw);
    if (!part) continue;
    if (part.thought === true) {
      reasoning += asString(part.text) ?? '';
      continue;
    }
    const piece = asString(part.text);
    if (piece !== undefined) text += piece;
    const image = imageOf(part.inlineData);
    if (image) images.push(image);
    const call = asObject(part.functionCall);
    if (call) {
      const id = toolCallIdFor(asString(call.id), asString(part.thoughtSignature), `${seed}|${firstCall + calls.length}`);
      calls.push({ id, type: 'function', function: { name: asString(call.name) ?? '', arguments: JSON.stringify(call.args ?? {}) } });
    }
  }
  return { text, reasoning, calls, images };
}

function imageOf(raw: unknown): IrOutputImage | undefined {
  const inline = asObject(raw);
  const mimeType = asString(inline?.mimeType);
  const data = asString(inline?.data);
  if (!mimeType?.startsWith('image/') || !data) return undefined;
  return { type: 'image_url', image_url: { url: `data:${mimeType};base64,${data}` } };
}

/**
 * GenerateContentResponse → IR completion (protocols.md §5.8): each candidate a choice (its
 * images in `message.images`); a prompt the vendor blocked becomes one empty choice ending in
 * `content_filter`.
 */
export function convertResponse(json: JsonObject, target: TargetInfo, created: number): IrCompletion {
  const id = asString(json.responseId) ?? `gen-${created}`;
  const candidates = asArray(json.candidates);
  const choices: IrChoice[] = candidates.map((raw, position) => {
    const candidate = asObject(raw) ?? {};
    const index = asNumber(candidate.index) ?? position;
    const { text, reasoning, calls, images } = readParts(candidate.content, `${id}|${index}`);
    const finish = asString(candidate.finishReason) ?? 'STOP';
    return {
      index,
      message: {
        role: 'assistant',
        content: text === '' && calls.length > 0 ? null : text,
        ...(calls.length > 0 && { tool_calls: calls }),
        ...(images.length > 0 && { images }),
        refusal: null,
        ...(reasoning !== '' && { reasoning }),
      },
      finish_reason: mapFinishReason(finish, calls.length > 0),
      raw_finish_reason: finish,
    };
  });
  if (choices.length === 0) {
    const blocked = asString(asObject(json.promptFeedback)?.blockReason) ?? 'OTHER';
    choices.push({ index: 0, message: { role: 'assistant', content: null, refusal: null }, finish_reason: 'content_filter', raw_finish_reason: blocked });
  }
  return { id, created, model: target.publicModel, choices, usage: usageToIr(json.usageMetadata) };
}
