// The Google dialect's pure halves: the Gemini wire → IR (function calls and responses matched,
// Google's schema types, thinking, refusals naming the field) and the stream encoder's two forms.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { convertRequest } from '../../src/dialects/google/convert-request.ts';
import { GoogleStreamEncoder } from '../../src/dialects/google/encode-generate-stream.ts';
import { encodeGenerateContent, usageMetadata } from '../../src/dialects/google/encode-generate.ts';
import { GatewayError } from '../../src/core/errors.ts';

describe('Gemini request → IR', () => {
  test('turns, function calls answered by id or by name, system text', () => {
    const { ir, warnings } = convertRequest(
      {
        systemInstruction: { parts: [{ text: 'Be brief.' }] },
        contents: [
          { role: 'user', parts: [{ text: 'Weather in Paris and Rome?' }] },
          { role: 'model', parts: [{ text: 'thinking…', thought: true }, { functionCall: { id: 'call_a', name: 'w', args: { city: 'Paris' } } }, { functionCall: { name: 'w', args: { city: 'Rome' } } }] },
          { role: 'user', parts: [{ functionResponse: { name: 'w', response: { output: 'rain' } } }, { functionResponse: { id: 'call_a', name: 'w', response: { temp: 20 } } }, { text: 'thanks' }] },
        ],
      },
      'm',
    );
    assert.deepEqual(warnings, []);
    assert.deepEqual(ir.messages[0], { role: 'system', content: 'Be brief.' });
    const assistant = ir.messages[2] as { tool_calls: Array<{ id: string; function: { arguments: string } }>; content: unknown };
    assert.equal(assistant.content, null);
    assert.equal(assistant.tool_calls[0]!.id, 'call_a');
    const second = assistant.tool_calls[1]!.id;
    // the response naming call_a takes it; the unnamed one the earliest unanswered call of its name; the parts' order kept
    assert.deepEqual(ir.messages.slice(3), [
      { role: 'tool', tool_call_id: second, content: 'rain' },
      { role: 'tool', tool_call_id: 'call_a', content: '{"temp":20}' },
      { role: 'user', content: [{ type: 'text', text: 'thanks' }] },
    ]);
  });

  test('Google schema types lowered, nullable as a type union; config; thinking budgets; dropped settings named', () => {
    const { ir, warnings } = convertRequest(
      {
        contents: [{ parts: [{ text: 'x' }] }],
        tools: [{ functionDeclarations: [{ name: 'f', parameters: { type: 'OBJECT', properties: { a: { type: 'STRING', nullable: true }, b: { type: 'ARRAY', items: { type: 'INTEGER' } } } } }] }],
        toolConfig: { functionCallingConfig: { mode: 'ANY', allowedFunctionNames: ['f'] } },
        generationConfig: { temperature: 0.2, topP: 0.9, topK: 3, maxOutputTokens: 99, stopSequences: ['END'], candidateCount: 2, thinkingConfig: { thinkingBudget: 4000 } },
        safetySettings: [{ category: 'HARM_CATEGORY_HARASSMENT', threshold: 'BLOCK_NONE' }],
      },
      'm',
    );
    assert.deepEqual((ir.tools![0] as { function: { parameters: unknown } }).function.parameters, { type: 'object', properties: { a: { type: ['string', 'null'] }, b: { type: 'array', items: { type: 'integer' } } } });
    assert.deepEqual(ir.tool_choice, { type: 'function', function: { name: 'f' } });
    assert.equal(ir.temperature, 0.2);
    assert.equal(ir.top_p, 0.9);
    assert.equal(ir.max_completion_tokens, 99);
    assert.deepEqual(ir.stop, ['END']);
    assert.equal(ir.n, 2);
    assert.equal(ir.reasoning_effort, 'medium');
    assert.deepEqual(warnings, ['generationConfig.topK dropped (not supported by this model)', 'safetySettings dropped (not supported by this model)']);
  });

  test('refusals name the field', () => {
    const param = (body: Record<string, unknown>) => {
      try {
        convertRequest(body, 'm');
      } catch (error) {
        return (error as GatewayError).param;
      }
      return undefined;
    };
    assert.equal(param({ contents: [{ role: 'robot', parts: [{ text: 'x' }] }] }), 'contents[0].role');
    assert.equal(param({ contents: [{ parts: [{ functionResponse: { name: 'nope', response: {} } }] }] }), 'contents[0].parts[0].functionResponse.name');
    assert.equal(param({ contents: [{ parts: [{ text: 'x' }] }], tools: [{ googleSearch: {} }] }), 'tools[0].googleSearch');
    assert.equal(param({ contents: [{ parts: [{ text: 'x' }] }], generationConfig: { thinkingConfig: { thinkingLevel: 'EXTREME' } } }), 'generationConfig.thinkingConfig.thinkingLevel');
    assert.equal(param({ contents: [{ parts: [{ executableCode: {} }] }] }), 'contents[0].parts[0]');
  });
});

describe('IR → Gemini answers', () => {
  const usage = { prompt_tokens: 10, completion_tokens: 7, total_tokens: 17, prompt_tokens_details: { cached_tokens: 4 }, completion_tokens_details: { reasoning_tokens: 2 } };

  test('usageMetadata: thoughts apart from the candidates', () => {
    assert.deepEqual(usageMetadata(usage), { promptTokenCount: 10, candidatesTokenCount: 5, totalTokenCount: 17, cachedContentTokenCount: 4, thoughtsTokenCount: 2 });
  });

  test('a completion with text and a tool call', () => {
    const body = JSON.parse(
      encodeGenerateContent({ id: 'r1', created: 0, model: 'm', usage, choices: [{ index: 0, message: { role: 'assistant', content: 'hi', tool_calls: [{ id: 'c1', type: 'function', function: { name: 'f', arguments: '{"a":1}' } }] }, finish_reason: 'tool_calls', raw_finish_reason: 'tool_use' }] }),
    );
    assert.deepEqual(body.candidates, [{ content: { role: 'model', parts: [{ text: 'hi' }, { functionCall: { id: 'c1', name: 'f', args: { a: 1 } } }] }, finishReason: 'STOP', index: 0 }]);
    assert.equal(body.modelVersion, 'm');
    assert.equal(body.responseId, 'r1');
  });

  test('stream: text chunks, then tool calls, finish and usage in the last chunk; SSE or one JSON array', () => {
    const frames = [
      [{ type: 'start', id: 'r2', created: 0, model: 'm' }, { type: 'role', choice: 0, role: 'assistant' }, { type: 'text-delta', choice: 0, text: 'He' }, { type: 'text-delta', choice: 0, text: 'llo' }],
      [{ type: 'tool-call-start', choice: 0, index: 0, id: 'c1', name: 'f' }, { type: 'tool-call-delta', choice: 0, index: 0, argumentsDelta: '{"a"' }],
      [{ type: 'tool-call-delta', choice: 0, index: 0, argumentsDelta: ':1}' }, { type: 'finish', choice: 0, reason: 'tool_calls', raw: null }],
    ] as const;
    for (const form of ['sse', 'array'] as const) {
      const encoder = new GoogleStreamEncoder(form);
      const text = frames.map((frame) => encoder.frame(frame)).join('') + encoder.end(usage);
      const chunks = form === 'sse' ? text.split('\r\n\r\n').filter(Boolean).map((event) => JSON.parse(event.replace(/^data: /, ''))) : JSON.parse(text);
      assert.equal(chunks.length, 2, form);
      assert.deepEqual(chunks[0], { candidates: [{ content: { role: 'model', parts: [{ text: 'Hello' }] }, index: 0 }], responseId: 'r2', modelVersion: 'm' });
      assert.deepEqual(chunks[1].candidates, [{ content: { role: 'model', parts: [{ functionCall: { id: 'c1', name: 'f', args: { a: 1 } } }] }, finishReason: 'STOP', index: 0 }]);
      assert.equal(chunks[1].usageMetadata.totalTokenCount, 17);
    }
  });

  test('a failed stream ends with the error in Google’s envelope (the array closed)', () => {
    const encoder = new GoogleStreamEncoder('array');
    const text = encoder.frame([{ type: 'text-delta', choice: 0, text: 'x' }]) + encoder.error(new GatewayError({ status: 502, type: 'upstream_error', message: 'upstream gone' }));
    const chunks = JSON.parse(text);
    assert.equal(chunks[1].error.code, 502);
    assert.equal(chunks[1].error.status, 'UNAVAILABLE');
  });
});
