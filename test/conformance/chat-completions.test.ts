// The conformance scenarios through chat completions (official `openai` client), against every family.
import { after, before, describe, test } from 'node:test';
import { FAMILIES } from '../helpers/families.ts';
import { chatScenarios } from './chat-scenarios.ts';
import { contextFor, startSuite, type Suite } from './context.ts';
import { SCENARIOS } from './scenario-list.ts';

let suite: Suite;
before(async () => {
  suite = await startSuite();
});
after(() => suite.close());

for (const family of FAMILIES) {
  describe(`chat completions → ${family}`, () => {
    for (const name of SCENARIOS) test(name, { timeout: 20_000 }, () => chatScenarios[name](contextFor(suite, family)));
  });
}
