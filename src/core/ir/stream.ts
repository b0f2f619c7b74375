import type { FinishReason, IrOutputImage } from './chat.ts';

/**
 * The IR of a streamed chat answer: a union of typed parts, each about one thing (the answer's
 * metadata, a piece of one choice's text, one tool call…), not a vendor's chunk shape. Vendor
 * stream decoders emit parts; client dialects' stream encoders write them. `choice` is the
 * choice's index (`n` > 1); `index` is a tool call's position in its choice's final list.
 *
 * Usage is not a part: the decoder reports it beside the stream (its `end()`), because the
 * pipeline settles it and the relay writes it in the trailer, after settlement.
 */
export type IrStreamPart =
  /** the answer's id, creation time and public model; again whenever the vendor changes them */
  | { type: 'start'; id: string; created: number; model: string }
  /** the choice says who speaks (a chunk's `role`): its first piece, and sometimes later ones */
  | { type: 'role'; choice: number; role: 'assistant' }
  /** answer text; may be '' (a vendor's opening piece) */
  | { type: 'text-delta'; choice: number; text: string }
  | { type: 'refusal-delta'; choice: number; text: string }
  /**
   * a piece of the model's reasoning text, as the vendor shows it (Anthropic thinking, Gemini
   * thought parts, `reasoning_content`): not answer text; dialects with a place for it write it
   * (Responses reasoning items, messages thinking blocks, Google thought parts), others drop it
   */
  | { type: 'reasoning-delta'; choice: number; text: string }
  /** a tool call announced, with the id (vendor state packed in, when it has any) and name the vendor gave */
  | { type: 'tool-call-start'; choice: number; index: number; id?: string; name?: string }
  /** a piece of a tool call's JSON arguments; may be '' (the vendor said the arguments begin empty) */
  | { type: 'tool-call-delta'; choice: number; index: number; argumentsDelta: string }
  /** a whole image the model drew (`modality: "image"`) */
  | { type: 'image'; choice: number; image: IrOutputImage }
  /** the choice ended: the unified reason, the vendor's own (`end_turn`, `MAX_TOKENS`…), and the stop sequence when the vendor says which */
  | { type: 'finish'; choice: number; reason: FinishReason; raw: string | null; stopSequence?: string | null };

/**
 * The parts a vendor sent as one unit (one OpenAI chunk, one piece of a Gemini candidate). A
 * dialect that writes units of its own (OpenAI's chunks) writes one per frame, so the client
 * reads the grouping the vendor chose; one that writes an event per part ignores it.
 */
export type IrStreamFrame = readonly IrStreamPart[];
