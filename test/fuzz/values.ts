// Hostile leaf values: the numbers, strings and shapes a careless or malicious client sends.
import fc from 'fast-check';

/** Numbers at the edges of what JSON, doubles, integers and the money code can hold. */
export const EXTREME_NUMBERS: readonly number[] = [1e308, -1e308, -0, 2 ** 53 + 1, -(2 ** 53) - 1, Number.MAX_SAFE_INTEGER, 5e-324, 1e21, -1, 0, 0.5, 1.5, 4294967296, 2 ** 63];

/** What a client writes when it means a non-finite number (JSON has none). */
export const NON_FINITE_AS_STRING: readonly string[] = ['NaN', 'Infinity', '-Infinity', '1e999', ''];

/** Odd Unicode: lone surrogates, NUL, right-to-left override, BOM, emoji, combining marks, a long grapheme. */
export const ODD_STRINGS: readonly string[] = ['\ud800', '\udfff', 'a\ud83dz', '\u0000', 'nul\u0000inside', '\u202egnp.exe', '\ufeff', '👩‍👩‍👧‍👦', 'e\u0301\u0301\u0301', 'Z̷̢̛̖̈́a̶̧̛l̸̨g̵o', '\u2028\u2029', '\\u0000', '"}]', '𝔘𝔫𝔦𝔠𝔬𝔡𝔢'];

export const extremeNumber = fc.constantFrom(...EXTREME_NUMBERS);

/** A long string, mostly without spaces (the tokenizer's worst case), sometimes of emoji. */
export const hugeString = fc
  .record({ length: fc.integer({ min: 8_000, max: 160_000 }), unit: fc.constantFrom('a', 'ab', 'é', '🙂', 'x y ', '\u0000') })
  .map(({ length, unit }) => unit.repeat(Math.ceil(length / unit.length)));

export const oddString = fc.oneof(fc.constantFrom(...ODD_STRINGS), fc.string({ unit: 'binary', maxLength: 40 }), fc.string({ unit: 'grapheme', maxLength: 20 }));

/** Nested arrays or objects `depth` levels deep, built without recursion. */
export function nested(depth: number, kind: 'array' | 'object'): unknown {
  let value: unknown = 1;
  for (let i = 0; i < depth; i++) value = kind === 'array' ? [value] : { a: value };
  return value;
}

/** A value of any JSON type, small: what "the wrong type" is drawn from. */
export const anyJson: fc.Arbitrary<unknown> = fc.oneof(
  fc.constant(null),
  fc.boolean(),
  fc.integer({ min: -5, max: 5 }),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.string({ maxLength: 12 }),
  fc.constant([]),
  fc.constant({}),
  fc.array(fc.string({ maxLength: 5 }), { maxLength: 3 }),
  fc.dictionary(fc.string({ maxLength: 5 }), fc.string({ maxLength: 5 }), { maxKeys: 3 }),
);

/** A hostile leaf: the wrong type, an extreme number, a non-finite spelled as a string, odd Unicode, a huge string. */
export const hostileLeaf: fc.Arbitrary<unknown> = fc.oneof(
  { arbitrary: anyJson, weight: 6 },
  { arbitrary: extremeNumber, weight: 4 },
  { arbitrary: fc.constantFrom(...NON_FINITE_AS_STRING), weight: 2 },
  { arbitrary: oddString, weight: 3 },
  { arbitrary: hugeString, weight: 1 },
);

/** A hostile leaf, or a nest deeper than any schema allows (the whole body is then at fault, not one field). */
export const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  { arbitrary: hostileLeaf, weight: 16 },
  { arbitrary: fc.record({ depth: fc.integer({ min: 50, max: 2_000 }), kind: fc.constantFrom('array' as const, 'object' as const) }).map(({ depth, kind }) => nested(depth, kind)), weight: 1 },
);

/** The JSON type names of a value, as a schema would name them. */
export function jsonTypeOf(value: unknown): 'null' | 'boolean' | 'integer' | 'number' | 'string' | 'array' | 'object' {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value as 'boolean' | 'string' | 'object';
}
