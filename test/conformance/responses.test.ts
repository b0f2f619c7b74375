// The conformance scenarios through the Responses dialect (official `openai` client, `responses`),
// against every family, served through the IR.
import { after, before, describe, test } from 'node:test';
import { FAMILIES } from '../helpers/families.ts';
import { contextFor, startSuite, type Suite } from './context.ts';
import { responsesScenarios } from './responses-scenarios.ts';
import { SCENARIOS } from './scenario-list.ts';

let suite: Suite;
before(async () => {
  suite = await startSuite();
});
after(() => suite.close());

for (const family of FAMILIES) {
  describe(`responses → ${family}`, () => {
    for (const name of SCENARIOS) test(name, { timeout: 20_000 }, () => responsesScenarios[name](contextFor(suite, family)));
  });
}
