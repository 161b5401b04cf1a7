// Every conformance vector in tests/conformance/*.json through the typed JS
// API (Node), in both entries: `retryplan/tools` runs every case; the default
// entry `retryplan` runs every case and step it has the API for, and what it
// cannot run is listed by id with the reason (LEAN_CANNOT_RUN in vectors.js).
// Then the default entry again with compiled policies: every policy and
// dependency configuration compiled by the tools entry (compilePolicy,
// compileDependency) and loaded with fromCompiled, as a page built with a
// compiled policy runs (core/tests/conformance.rs,
// every_vector_passes_with_compiled_policies); it runs and passes exactly the
// cases the default entry's own run does. And the tools entry with compiled
// policies (its own fromCompiled), which runs every case: the tools' calls
// (classify, explain, ceilings, redelivery) on a policy read back from its form.
// And the browser runtime (what `retryplan` is in a browser: no configuration
// reader, no messages) with compiled policies: the same cases as the default
// entry's compiled run, its errors checked by code and field. And the lean
// browser runtime (no shared controls): the browser runtime's cases but those
// with a control (LEAN_RUNTIME_CANNOT_RUN).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import * as leanApi from 'retryplan';
import * as tools from 'retryplan/tools';
import * as runtime from './runtime.mjs';
import * as leanRuntime from './runtime-lean.mjs';
import {
  FILES_NOT_YET_RUN,
  LEAN_CANNOT_RUN,
  LEAN_RUNTIME_CANNOT_RUN,
  RUNTIME_CANNOT_RUN,
  newRun,
  runCase,
} from './vectors.js';

/** The text of every error the vectors expect, as Rust composes it (core/tests/conformance.rs keeps it current). */
const rustMessages = JSON.parse(
  readFileSync(new URL('../../tests/messages/errors.json', import.meta.url), 'utf8'),
).messages;

// RETRYPLAN_VECTORS names another directory, as for the Rust runner.
const dir = process.env.RETRYPLAN_VECTORS
  ? pathToFileURL(process.env.RETRYPLAN_VECTORS.replace(/\/?$/, '/'))
  : new URL('../../tests/conformance/', import.meta.url);
const files = readdirSync(dir)
  .filter((name) => name.endsWith('.json') && name !== 'schema.json' && !FILES_NOT_YET_RUN.has(name))
  .sort();

const documents = files.map((name) => ({ name, document: JSON.parse(readFileSync(new URL(name, dir), 'utf8')) }));
const total = documents.reduce((sum, { document }) => sum + document.cases.length, 0);

test('the vector directory holds vectors', () => {
  assert.ok(total > 0, `no vectors in ${dir.pathname}`);
});

/** What each entry's run left out, by entry: the compiled run leaves out what the default entry's leaves out. */
const skippedBy = {};

const LEAN_RUNTIME = 'retryplan lean browser runtime, compiled policies';

for (const [entry, api, lean, compiled, controls] of [
  ['retryplan/tools', tools, false],
  ['retryplan', leanApi, true],
  ['retryplan, compiled policies', leanApi, true, tools],
  ['retryplan/tools, compiled policies', tools, false, tools],
  ['retryplan browser runtime, compiled policies', runtime, true, tools],
  [LEAN_RUNTIME, leanRuntime, true, tools, false],
]) {
  let ran = 0;
  const run = newRun(lean, compiled, controls);
  const browserRuntime = api === runtime || api === leanRuntime;
  skippedBy[entry] = run.skipped;
  for (const { name, document } of documents) {
    for (const testCase of document.cases) {
      test(`${entry}: ${name}: ${testCase.id}`, () => {
        const failures = [];
        runCase(api, testCase, failures, run); // throws on an unknown kind or call
        ran += 1;
        assert.deepEqual(failures, []);
      });
    }
  }

  // The browser runtime carries no messages (its errors' words are their code and field).
  const wordless = browserRuntime;
  test(`${entry}: every error's message is the core's, byte for byte (composed outside the wasm)`, {
    skip: process.env.RETRYPLAN_VECTORS !== undefined || wordless,
  }, () => {
    const labels = Object.keys(run.messages);
    assert.ok(labels.length > 0);
    for (const label of labels) assert.equal(run.messages[label], rustMessages[label], label);
    // The tools entry meets every error of the vectors; the default entry every one it runs.
    if (!lean) assert.deepEqual(labels.sort(), Object.keys(rustMessages).sort());
    console.log(`node ${entry}: ${labels.length} error messages identical to Rust's`);
  });

  test(`${entry}: every case of every file ran`, () => {
    assert.equal(ran, total);
    if (!lean) assert.deepEqual(run.skipped, [], 'the tools entry runs everything');
    const cases = run.skipped.filter((line) => !/ step \d+ /.test(line));
    const steps = run.skipped.length - cases.length;
    console.log(
      `node ${entry}: ${ran} vectors in ${files.length} files; ${cases.length} cases and ${steps} steps left out:`,
    );
    for (const line of run.skipped) console.log(`  ${line}`);
    if (compiled !== undefined) {
      // The same cases and steps as the entry's own run, every policy and dependency configuration through its
      // form (the repository's vectors hold this many: 240 and 29 in the default entry, which leaves out the
      // tools' kinds; another directory holds what it holds).
      // The browser runtime leaves out what a page does not do (RUNTIME_CANNOT_RUN), and only that, besides.
      const runtimeReasons = browserRuntime ? Object.values(RUNTIME_CANNOT_RUN.kinds) : [];
      const noControls = Object.values(LEAN_RUNTIME_CANNOT_RUN.inputs);
      const besides = run.skipped.filter(
        (line) => ![...runtimeReasons, ...noControls].some((reason) => line.endsWith(reason)),
      );
      if (api === leanRuntime) {
        // The browser runtime's run, less the cases with a control; and it does leave some out, and runs the rest.
        const withControls = run.skipped.filter((line) => noControls.some((reason) => line.endsWith(reason)));
        assert.ok(
          withControls.length >= (process.env.RETRYPLAN_VECTORS === undefined ? 100 : 0),
          `${withControls.length}`,
        );
        // A case left out for its controls is left out whatever else it needs (a case may also name a tool).
        const caseId = (line) => line.split(/:| operation \d+| step /)[0];
        const ids = new Set(withControls.map(caseId));
        const besidesControls = (lines) => lines.filter((line) => !ids.has(caseId(line)));
        assert.deepEqual(
          besidesControls(run.skipped),
          besidesControls(skippedBy['retryplan browser runtime, compiled policies']),
        );
      }
      // (The lean runtime's is checked against the browser runtime's above, which this checks against the default entry's.)
      if (api !== leanRuntime) assert.deepEqual(besides, skippedBy[lean ? 'retryplan' : 'retryplan/tools']);
      if (browserRuntime)
        assert.ok(run.skipped.length > besides.length, 'the runtime leaves the propagation cases out');
      const { policies, dependencies } = run.compiledCount;
      const least = api === leanRuntime ? [150, 0] : lean ? [200, 25] : [300, 30];
      if (process.env.RETRYPLAN_VECTORS === undefined)
        assert.ok(
          policies >= least[0] && dependencies >= least[1],
          `${policies} policies, ${dependencies} dependencies`,
        );
      console.log(
        `node ${entry}: ${policies} compiled policies and ${dependencies} compiled dependencies loaded by fromCompiled`,
      );
    }
    if (lean) {
      // Nothing is left out but for the reasons listed, and the default entry does run most vectors.
      const runtimeKinds = browserRuntime ? Object.values(RUNTIME_CANNOT_RUN.kinds) : [];
      if (api === leanRuntime) runtimeKinds.push(...Object.values(LEAN_RUNTIME_CANNOT_RUN.inputs));
      const reasons = new Set([
        ...Object.values(LEAN_CANNOT_RUN.kinds),
        ...Object.values(LEAN_CANNOT_RUN.calls),
        ...Object.values(LEAN_CANNOT_RUN.inputs),
        ...runtimeKinds,
      ]);
      for (const line of run.skipped)
        assert.ok(
          [...reasons].some((reason) => line.endsWith(reason)),
          line,
        );
      // The decision engine's kinds all run, but for an input only a tool makes.
      const inputs = new Set(Object.values(LEAN_CANNOT_RUN.inputs));
      const engine = cases.filter((line) => ![...inputs].some((reason) => line.endsWith(reason)));
      assert.ok(
        engine.every((line) =>
          [...Object.values(LEAN_CANNOT_RUN.kinds), ...runtimeKinds].some((reason) => line.endsWith(reason)),
        ),
      );
    }
  });
}
