// The conformance scenarios through the Google dialect (`@google/genai`: generateContent, streamGenerateContent?alt=sse),
// against every family, served through the IR (the gemini family through its pass-through).
import { after, before, describe, test } from 'node:test';
import { FAMILIES } from '../helpers/families.ts';
import { contextFor, startSuite, type Suite } from './context.ts';
import { googleScenarios } from './google-scenarios.ts';
import { SCENARIOS } from './scenario-list.ts';

let suite: Suite;
before(async () => {
  suite = await startSuite();
});
after(() => suite.close());

for (const family of FAMILIES) {
  describe(`google → ${family}`, () => {
    for (const name of SCENARIOS) test(name, { timeout: 20_000 }, () => googleScenarios[name](contextFor(suite, family)));
  });
}
