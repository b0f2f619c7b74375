import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { test } from 'node:test';
import { cruise, type ICruiseResult, type IConfiguration } from 'dependency-cruiser';

// The layer rules of docs/architecture.md, checked on every test run: no import circles, and each
// layer imports only what .dependency-cruiser.cjs allows. There are no exceptions to list here.
test('src/ and simulators/ keep to the layer rules, with no import circle', async () => {
  const config = createRequire(import.meta.url)('../.dependency-cruiser.cjs') as IConfiguration;
  const roots = ['src', 'simulators'].filter((dir) => existsSync(dir));
  const { output } = await cruise(roots, { ...config.options, validate: true, ruleSet: { forbidden: config.forbidden } });
  const result = output as ICruiseResult;
  assert.ok(result.summary.totalCruised > 300, `the check read ${result.summary.totalCruised} modules: it is not reading the TypeScript sources`);
  const breaches = result.summary.violations.map((v) => `${v.rule.name}: ${v.from} → ${v.to}${v.cycle ? ` (circle: ${v.cycle.map((c) => c.name).join(' → ')})` : ''}`);
  assert.deepEqual(breaches, []);
});
