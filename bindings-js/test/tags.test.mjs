// No numbered code between lib/ and the wasm written by hand (the controls
// pass the core's names and the attempt's result; lib/tags.js is gone), the
// driver's wire built from the core's tables (lib/wire.js), and the private
// surface out of reach: the wasm's `_` functions are internals of lib/, never
// exported by an entry.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import test from 'node:test';
import { NAMES, WIRE } from '../lib/wire.js';
import { _wireTables } from '../wasm/retryplan_js.js';
import * as lean from 'retryplan';
import * as tools from 'retryplan/tools';

test('lib/ and the wasm exchange no numbered codes of their own (lib/tags.js and its Rust twins are gone)', () => {
  for (const [dir, suffix] of [
    ['../lib/', '.js'],
    ['../src/', '.rs'],
  ]) {
    const folder = new URL(dir, import.meta.url);
    for (const file of readdirSync(folder).filter((name) => name.endsWith(suffix))) {
      const source = readFileSync(new URL(file, folder), 'utf8');
      assert.doesNotMatch(source, /\b(START|CONTROL|SETTLE|SLOTS)_[A-Z_]+\b/, `${dir}${file} numbers a call by hand`);
    }
  }
});

test("the wire's constants are the core's tables (core/src/driver/wire.md), and no host module writes a word or kind by number", () => {
  assert.equal(_wireTables()[0][0], 2, 'WIRE_VERSION');
  // Spot checks against the documented layout: the tables are the core's, the host only names them.
  assert.deepEqual(
    [WIRE.IN.input_kind, WIRE.IN.outcome_retry_after_ms, WIRE.OUT.receipt, WIRE.OUT.detail],
    [0, 7, 0, 14],
  );
  assert.deepEqual(Object.keys(WIRE.INPUT), ['poll', 'result', 'cancel', 'timer_ended']);
  assert.deepEqual(Object.keys(WIRE.ACTION), ['start_attempt', 'abort_attempt', 'sleep', 'release', 'finish']);
  assert.deepEqual(NAMES.endingKinds, ['succeeded', 'gave_up', 'reconcile', 'restart']);
  assert.ok(NAMES.giveUpReasons.includes('body_not_replayable'));
  const lib = new URL('../lib/', import.meta.url);
  for (const file of ['host.js', 'helpers.js', 'driver.js', 'outcomes.js']) {
    const source = readFileSync(new URL(file, lib), 'utf8');
    assert.doesNotMatch(source, /(out|OUT|IN)\[\d/, `${file} indexes a record by number`);
    assert.doesNotMatch(source, /PARTS_|_driverResultPoll|_driverLastResult|latestValue|lastResult\(\)/, file);
  }
});

test('the private surface is out of reach: no entry exports a `_` function, and the glue is no export of the package', async () => {
  for (const entry of [lean, tools]) {
    assert.deepEqual(
      Object.keys(entry).filter((name) => name.startsWith('_')),
      [],
    );
  }
  for (const path of [
    'retryplan/wasm/retryplan_js.js',
    'retryplan/lib/wire.js',
    'retryplan/tools/wasm/retryplan_js.js',
  ]) {
    await assert.rejects(import(path), { code: 'ERR_PACKAGE_PATH_NOT_EXPORTED' }, path);
  }
  // A handle is kept under a symbol, not a property a user sees.
  const policy = lean.Policy.profile(lean.profileNames()[0]);
  assert.deepEqual(Object.keys(policy), []);
  policy.free();
});
