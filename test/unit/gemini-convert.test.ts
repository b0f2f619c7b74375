// IR → Gemini request (exact upstream bodies), Gemini answers → IR, thought signatures through
// tool-call ids, and the settings the family refuses or drops.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { IrChatRequest } from '../../src/core/ir/chat.ts';
import { openaiChatOutput } from '../../src/dialects/openai/chat-output.ts';
import type { ChatCall, TargetInfo } from '../../src/core/contracts/vendor-codec.ts';
import { geminiChat } from '../../src/vendors/gemini/chat.ts';
import { convertRequest } from '../../src/vendors/gemini/convert-request.ts';
import { convertResponse } from '../../src/vendors/gemini/convert-response.ts';
import { mapGeminiError } from '../../src/vendors/gemini/errors.ts';
import { readToolCallId } from '../../src/vendors/gemini/signature-state.ts';
import { GeminiStreamDecoder } from '../../src/vendors/gemini/stream-decoder.ts';

const target: TargetInfo = { providerId: 'p', upstreamModel: 'gemini-3-pro-preview', publicModel: 'gemini-public' };
const call = (body: Partial<IrChatRequest>, stream = false): ChatCall => ({
  body: { model: 'gemini-public', messages: [{ role: 'user', content: 'hi' }], ...body },
  stream,
  clientWantsUsage: false,
  maxOutputTokens: 4096,
  created: 1,
});

describe('IR → Gemini request', () => {
  test('a full conversation becomes the exact generateContent body', () => {
    const { body, warnings } = convertRequest(
      call({
        messages: [
          { role: 'system', content: 'Be terse.' },
          {
            role: 'user',
            content: [
              { type: 'text', text: 'Weather here?' },
              { type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA' } },
              { type: 'image_url', image_url: { url: 'https://example.com/a.webp' } },
              { type: 'input_audio', input_audio: { data: 'UklG', format: 'wav' } },
            ],
          },
          { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }] },
          { role: 'tool', tool_call_id: 'call_1', content: '{"temp":21}' },
          { role: 'tool', tool_call_id: 'call_1', content: 'plain text' },
        ],
        tools: [{ type: 'function', function: { name: 'get_weather', description: 'weather', parameters: { type: 'object' } } }],
        tool_choice: { type: 'function', function: { name: 'get_weather' } },
        temperature: 1.5,
        top_p: 0.9,
        max_completion_tokens: 100,
        stop: ['END'],
        n: 2,
        seed: 7,
        presence_penalty: 0.1,
        response_format: { type: 'json_schema', json_schema: { name: 'x', schema: { type: 'object' } } },
        reasoning_effort: 'low',
      }),
      target.upstreamModel,
    );
    assert.deepEqual(warnings, []);
    assert.deepEqual(body, {
      contents: [
        {
          role: 'user',
          parts: [
            { text: 'Weather here?' },
            { inlineData: { mimeType: 'image/png', data: 'AAAA' } },
            { fileData: { mimeType: 'image/webp', fileUri: 'https://example.com/a.webp' } },
            { inlineData: { mimeType: 'audio/wav', data: 'UklG' } },
          ],
        },
        { role: 'model', parts: [{ functionCall: { name: 'get_weather', args: { city: 'Paris' }, id: 'call_1' }, thoughtSignature: 'skip_thought_signature_validator' }] },
        {
          role: 'user',
          parts: [
            { functionResponse: { name: 'get_weather', response: { output: { temp: 21 } }, id: 'call_1' } },
            { functionResponse: { name: 'get_weather', response: { output: 'plain text' }, id: 'call_1' } },
          ],
        },
      ],
      systemInstruction: { parts: [{ text: 'Be terse.' }] },
      tools: [{ functionDeclarations: [{ name: 'get_weather', description: 'weather', parametersJsonSchema: { type: 'object' } }] }],
      toolConfig: { functionCallingConfig: { mode: 'ANY', allowedFunctionNames: ['get_weather'] } },
      generationConfig: {
        temperature: 1.5,
        topP: 0.9,
        maxOutputTokens: 100,
        stopSequences: ['END'],
        candidateCount: 2,
        seed: 7,
        presencePenalty: 0.1,
        responseMimeType: 'application/json',
        responseJsonSchema: { type: 'object' },
        thinkingConfig: { thinkingLevel: 'LOW' },
      },
    });
  });

  test('2.x models take a thinking budget; streams use alt=sse', () => {
    const { body } = convertRequest(call({ reasoning_effort: 'medium' }), 'gemini-2.5-flash');
    assert.deepEqual((body.generationConfig as { thinkingConfig: unknown }).thinkingConfig, { thinkingBudget: 8192 });
    assert.equal(geminiChat.prepare(call({}, true), target).path, '/models/gemini-3-pro-preview:streamGenerateContent?alt=sse');
    assert.equal(geminiChat.prepare(call({}), target).path, '/models/gemini-3-pro-preview:generateContent');
  });

  test('dropped with a warning: parallel_tool_calls, logit_bias', () => {
    const { warnings } = convertRequest(call({ tools: [{ type: 'function', function: { name: 'f' } }], parallel_tool_calls: false, logit_bias: { '1': 1 } }), 'm');
    assert.deepEqual(warnings, ['parallel_tool_calls dropped (the vendor has no such switch)', 'logit_bias dropped (not supported by this model)']);
  });

  for (const [name, body, param] of [
    ['logprobs', { logprobs: true }, 'logprobs'],
    ['a tool result for no call', { messages: [{ role: 'tool', tool_call_id: 'nope', content: 'x' }] }, 'messages[0].tool_call_id'],
    ['file ids', { messages: [{ role: 'user', content: [{ type: 'file', file: { file_id: 'file-1' } }] }] }, 'messages[0].content[0].file.file_id'],
  ] as const) {
    test(`refused with a 400 naming the field: ${name}`, () => {
      assert.throws(() => convertRequest(call(body as Partial<IrChatRequest>), 'm'), (error: { status: number; param: string }) => error.status === 400 && error.param === param);
    });
  }
});

describe('Gemini answer → IR', () => {
  test('candidates, function calls with signatures, finish reasons, usage with thoughts and cache', () => {
    const ir = convertResponse(
      {
        responseId: 'r1',
        candidates: [
          { index: 0, content: { role: 'model', parts: [{ text: 'thinking…', thought: true }, { functionCall: { name: 'f', args: { a: 1 } }, thoughtSignature: 'SIG' }, { functionCall: { name: 'g', args: {} } }] }, finishReason: 'STOP' },
          { index: 1, content: { role: 'model', parts: [{ text: 'cut' }] }, finishReason: 'MAX_TOKENS' },
        ],
        usageMetadata: { promptTokenCount: 12, candidatesTokenCount: 3, thoughtsTokenCount: 40, cachedContentTokenCount: 4, toolUsePromptTokenCount: 2, totalTokenCount: 57 },
      },
      target,
      9,
    );
    const [first, second] = ir.choices;
    assert.equal(first!.finish_reason, 'tool_calls');
    assert.equal(first!.raw_finish_reason, 'STOP');
    assert.equal(first!.message.content, null, 'thought parts are not content');
    const [f, g] = first!.message.tool_calls!;
    assert.deepEqual(readToolCallId(f!.id).signature, 'SIG');
    assert.equal(readToolCallId(f!.id).vendorId, undefined, 'a synthesised id is never sent back as the vendor’s');
    assert.match(g!.id, /^call_mg[0-9a-f]{24}$/);
    assert.equal(f!.function.arguments, '{"a":1}');
    assert.equal(second!.finish_reason, 'length');
    assert.deepEqual(ir.usage, { prompt_tokens: 14, completion_tokens: 43, total_tokens: 57, prompt_tokens_details: { cached_tokens: 4 }, completion_tokens_details: { reasoning_tokens: 40 } });
    // the same answer always gets the same ids (replayed streams agree)
    assert.deepEqual(convertResponse({ responseId: 'r1', candidates: [{ index: 0, content: { parts: [{ functionCall: { name: 'g', args: {} } }] } }] }, target, 9).choices[0]!.message.tool_calls![0]!.id, convertResponse({ responseId: 'r1', candidates: [{ index: 0, content: { parts: [{ functionCall: { name: 'g', args: {} } }] } }] }, target, 9).choices[0]!.message.tool_calls![0]!.id);
  });

  test('the signature goes back on its function call', () => {
    const ir = convertResponse({ responseId: 'r', candidates: [{ content: { parts: [{ functionCall: { name: 'f', args: { a: 1 } }, thoughtSignature: 'SIG' }] }, finishReason: 'STOP' }] }, target, 0);
    const calls = ir.choices[0]!.message.tool_calls!;
    const { body } = convertRequest(call({ messages: [{ role: 'user', content: 'q' }, { role: 'assistant', content: null, tool_calls: calls }, { role: 'tool', tool_call_id: calls[0]!.id, content: '1' }] }), 'm');
    const model = (body.contents as Array<{ parts: unknown[] }>)[1]!;
    assert.deepEqual(model.parts, [{ functionCall: { name: 'f', args: { a: 1 } }, thoughtSignature: 'SIG' }]);
  });

  test('a blocked prompt is one empty choice ending in content_filter', () => {
    const ir = convertResponse({ promptFeedback: { blockReason: 'SAFETY' } }, target, 0);
    assert.deepEqual(ir.choices, [{ index: 0, message: { role: 'assistant', content: null, refusal: null }, finish_reason: 'content_filter', raw_finish_reason: 'SAFETY' }]);
  });

  for (const [raw, unified] of [
    ['SAFETY', 'content_filter'],
    ['RECITATION', 'content_filter'],
    ['PROHIBITED_CONTENT', 'content_filter'],
    ['MAX_TOKENS', 'length'],
    ['OTHER', 'stop'],
    ['MALFORMED_FUNCTION_CALL', 'stop'],
  ] as const) {
    test(`finishReason ${raw} → ${unified}`, () => {
      assert.equal(convertResponse({ candidates: [{ content: { parts: [{ text: 'x' }] }, finishReason: raw }] }, target, 0).choices[0]!.finish_reason, unified);
    });
  }
});

describe('image output (modality "image")', () => {
  const PNG = 'iVBORw0KGgo=';
  const parts = [
    { text: 'drafting…', thought: true },
    { inlineData: { mimeType: 'image/png', data: 'DRAFT' }, thought: true },
    { text: 'Here is your cat.' },
    { inlineData: { mimeType: 'image/png', data: PNG } },
    { inlineData: { mimeType: 'audio/wav', data: 'UklG' } },
  ];

  test('asked with responseModalities TEXT and IMAGE; the modality field never goes upstream', () => {
    const { body, warnings } = convertRequest(call({ modality: 'image' }), 'gemini-2.5-flash-image');
    assert.deepEqual(warnings, []);
    // the output cap the call was reserved for always goes upstream (issue 18: no answer past the hold)
    assert.deepEqual(body.generationConfig, { maxOutputTokens: 4096, responseModalities: ['TEXT', 'IMAGE'] });
    assert.ok(!JSON.stringify(body).includes('modality"'));
    assert.deepEqual(convertRequest(call({ modality: 'text' }), 'm').body.generationConfig, { maxOutputTokens: 4096 });
  });

  test('inlineData image parts become message.images data URLs; thought drafts and other media are left out (the thought text is reasoning)', () => {
    const ir = convertResponse({ responseId: 'r', candidates: [{ content: { role: 'model', parts }, finishReason: 'STOP' }] }, target, 0);
    assert.deepEqual(ir.choices[0]!.message, {
      role: 'assistant',
      content: 'Here is your cat.',
      images: [{ type: 'image_url', image_url: { url: `data:image/png;base64,${PNG}` } }],
      refusal: null,
      reasoning: 'drafting…',
    });
    assert.equal(ir.choices[0]!.finish_reason, 'stop');
    const encoded = JSON.parse(openaiChatOutput(false).encodeCompletion(ir));
    assert.deepEqual(encoded.choices[0].message.images, [{ type: 'image_url', image_url: { url: `data:image/png;base64,${PNG}` } }]);
    const plain = JSON.parse(openaiChatOutput(false).encodeCompletion(convertResponse({ candidates: [{ content: { parts: [{ text: 'x' }] } }] }, target, 0)));
    assert.equal('images' in plain.choices[0].message, false, 'omitted when there are none');
  });

  test('stream: thought text, text, then each image as a frame of its own, then the finish, even within one event', () => {
    const decoder = new GeminiStreamDecoder(target, 0);
    const event = (data: unknown) => ({ data: JSON.stringify(data), event: '', id: '' });
    const frames = [
      ...decoder.onEvent(event({ responseId: 'r', candidates: [{ index: 0, content: { parts: [{ text: 'Here ' }] } }] })),
      ...decoder.onEvent(event({ responseId: 'r', candidates: [{ index: 0, content: { parts }, finishReason: 'STOP' }], usageMetadata: { promptTokenCount: 5, candidatesTokenCount: 1300, totalTokenCount: 1305 } })),
    ];
    assert.deepEqual(frames, [
      [
        { type: 'start', id: 'r', created: 0, model: 'gemini-public' },
        { type: 'role', choice: 0, role: 'assistant' },
        { type: 'text-delta', choice: 0, text: '' },
      ],
      [{ type: 'text-delta', choice: 0, text: 'Here ' }],
      [{ type: 'reasoning-delta', choice: 0, text: 'drafting…' }],
      [{ type: 'text-delta', choice: 0, text: 'Here is your cat.' }],
      [{ type: 'image', choice: 0, image: { type: 'image_url', image_url: { url: `data:image/png;base64,${PNG}` } } }],
      [{ type: 'finish', choice: 0, reason: 'stop', raw: 'STOP' }],
    ]);
    assert.deepEqual(decoder.end(), { complete: true, usage: { prompt_tokens: 5, completion_tokens: 1300, total_tokens: 1305, prompt_tokens_details: { cached_tokens: 0 }, completion_tokens_details: { reasoning_tokens: 0 } } });
  });
});

describe('Gemini errors', () => {
  const bytes = (value: unknown) => new TextEncoder().encode(JSON.stringify(value));
  test('an invalid key is the gateway’s problem: retried elsewhere, never shown', () => {
    const failure = mapGeminiError(400, bytes({ error: { code: 400, message: 'API key not valid.', status: 'INVALID_ARGUMENT', details: [{ reason: 'API_KEY_INVALID' }] } }), {});
    assert.equal(failure.retryable, true);
    assert.equal(failure.error.status, 502);
  });
  test('a bad request reaches the client with the vendor message; an array-wrapped error is read', () => {
    const failure = mapGeminiError(400, bytes([{ error: { code: 400, message: 'bad field', status: 'INVALID_ARGUMENT' } }]), {});
    assert.equal(failure.retryable, false);
    assert.equal(failure.error.message, 'bad field');
  });
  test('RESOURCE_EXHAUSTED → 429, retried elsewhere', () => {
    const failure = mapGeminiError(429, bytes({ error: { code: 429, message: 'quota', status: 'RESOURCE_EXHAUSTED' } }), { 'retry-after': '3' });
    assert.equal(failure.retryable, true);
    assert.equal(failure.error.status, 429);
    assert.equal(failure.error.retryAfter, 3);
  });
});
