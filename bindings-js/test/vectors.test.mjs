// Every conformance vector in tests/conformance/*.json through the typed JS API (Node).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import * as api from 'retryplan';
import { runCase } from './vectors.js';

// RETRYPLAN_VECTORS names another directory, as for the Rust runner.
const dir = process.env.RETRYPLAN_VECTORS
  ? pathToFileURL(process.env.RETRYPLAN_VECTORS.replace(/\/?$/, '/'))
  : new URL('../../tests/conformance/', import.meta.url);
const files = readdirSync(dir)
  .filter((name) => name.endsWith('.json') && name !== 'schema.json')
  .sort();

test('the vector directory holds vectors', () => {
  const total = files.reduce((sum, name) => sum + JSON.parse(readFileSync(new URL(name, dir), 'utf8')).cases.length, 0);
  assert.ok(total > 0, `no vectors in ${dir.pathname}`);
});

for (const name of files) {
  const document = JSON.parse(readFileSync(new URL(name, dir), 'utf8'));
  for (const testCase of document.cases) {
    test(`${name}: ${testCase.id}`, () => {
      const failures = [];
      runCase(api, testCase, failures);
      assert.deepEqual(failures, []);
    });
  }
}
