// The conformance scenarios through the native messages endpoint (official `@anthropic-ai/sdk`),
// against every family: pass-through for the messages family, the chat bridge for the others.
import { after, before, describe, test } from 'node:test';
import { FAMILIES } from '../helpers/families.ts';
import { contextFor, startSuite, type Suite } from './context.ts';
import { messagesScenarios } from './messages-scenarios.ts';
import { SCENARIOS } from './scenario-list.ts';

let suite: Suite;
before(async () => {
  suite = await startSuite();
});
after(() => suite.close());

for (const family of FAMILIES) {
  describe(`messages → ${family}`, () => {
    for (const name of SCENARIOS) test(name, { timeout: 20_000 }, () => messagesScenarios[name](contextFor(suite, family)));
  });
}
