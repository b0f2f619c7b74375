// Gemini reports the prompt's tokens per modality; audio is billed at the model's audio input price.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { usageFromIr } from '../../src/core/ir/usage.ts';
import { usageToIr } from '../../src/vendors/gemini/map-usage.ts';

test('promptTokensDetails: the AUDIO tokens reach the billing usage as audio input', () => {
  const ir = usageToIr({
    promptTokenCount: 1_000,
    candidatesTokenCount: 20,
    totalTokenCount: 1_020,
    promptTokensDetails: [
      { modality: 'TEXT', tokenCount: 40 },
      { modality: 'AUDIO', tokenCount: 960 },
    ],
  });
  assert.equal(ir?.prompt_tokens_details?.audio_tokens, 960);
  const usage = usageFromIr(ir!);
  assert.equal(usage.inputTokens, 1_000);
  assert.equal(usage.audioInputTokens, 960);
});

test('no audio in the prompt: no audio field at all', () => {
  const usage = usageFromIr(usageToIr({ promptTokenCount: 10, candidatesTokenCount: 2, promptTokensDetails: [{ modality: 'TEXT', tokenCount: 10 }] })!);
  assert.equal(usage.audioInputTokens, undefined);
});
