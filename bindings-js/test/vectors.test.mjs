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

const documents = files.map((name) => ({ name, document: JSON.parse(readFileSync(new URL(name, dir), 'utf8')) }));
const total = documents.reduce((sum, { document }) => sum + document.cases.length, 0);
let ran = 0;

test('the vector directory holds vectors', () => {
  assert.ok(total > 0, `no vectors in ${dir.pathname}`);
});

for (const { name, document } of documents) {
  for (const testCase of document.cases) {
    test(`${name}: ${testCase.id}`, () => {
      const failures = [];
      runCase(api, testCase, failures); // throws on an unknown kind or call
      ran += 1;
      assert.deepEqual(failures, []);
    });
  }
}

test('every case of every file ran', () => {
  assert.equal(ran, total);
  console.log(`node: ${ran} vectors in ${files.length} files`);
});
