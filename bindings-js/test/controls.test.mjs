// The control handles and their grants (test/controls.js), through both
// entries; test/browser.test.mjs runs the same checks in Chromium.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as lean from 'retryplan';
import * as tools from 'retryplan/tools';
import { controlChecks } from './controls.js';

for (const [name, api] of [
  ['retryplan', lean],
  ['retryplan/tools', tools],
]) {
  test(`${name}: grants are single use, owned by their control, given back when freed; a freed control settles nothing`, () => {
    assert.deepEqual(controlChecks(api), []);
  });
}
