// The package in headless Chromium: every vector through the entries (the browser runtime with compiled policies),
// one retryFetch scenario against a local server, then every shared helper
// scenario (tests/helpers/) through retryFetch against the scenario server,
// reached from the page's own origin through a relay (serve.mjs).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { serve, repoRoot } from './serve.mjs';
import { withPage, resultOf } from './chromium.mjs';
import { check } from './scenarios.js';
import { FILES_NOT_YET_RUN, LEAN_RUNTIME_CANNOT_RUN } from './vectors.js';
import { closedPort, scenarioUrl, startScenarioServer } from './scenario-server.mjs';

const vectors = process.env.RETRYPLAN_VECTORS ?? fileURLToPath(new URL('../../tests/conformance/', import.meta.url));
const { scenarios } = JSON.parse(readFileSync(new URL('../../tests/helpers/scenarios.json', import.meta.url), 'utf8'));

/**
 * Where Chromium cannot observe what Node observes, and what it does instead.
 * A browser's fetch rejects with an opaque `TypeError: Failed to fetch` for
 * every network error: it never says whether the connection was refused
 * (nothing sent) or reset after sending. retryFetch reads that honestly as
 * connection_lost (it may have been processed).
 */
// dns_failure_is_not_sent_and_retried holds in Chromium too, though not for
// the scenario's reason: the failed lookup is the same opaque TypeError,
// read as connection_lost, which a GET (idempotent) may repeat as well.
const inChromium = {
  connection_refused_is_not_sent_and_retried: {
    reason:
      'a refused connection is the opaque TypeError in a browser, read as connection_lost: the POST (unsafe under the default policy) is never repeated and reconciles after one attempt, where Node, told ECONNREFUSED, retries it',
    expect: (expect) => ({ ...expect, result: { raises: { ending: 'reconcile' } }, elapsed_ms: { min: 0, max: 1500 } }),
  },
};

test('vectors, a fetch scenario and the shared helper scenarios in Chromium', async () => {
  const scenarioServer = await startScenarioServer();
  const server = await serve({ root: repoRoot, vectors, scenarioPort: scenarioServer.port });
  // A port freed now, while both servers hold theirs: taken before `serve`, the page's server could be given it
  // back (it was, once: the "refused" POST reached it and succeeded).
  const closed = await closedPort();
  try {
    await withPage(async (page, errors) => {
      const result = await resultOf(page, `${server.url}/bindings-js/test/browser/`);
      assert.equal(result.crashed, undefined, result.crashed);
      assert.deepEqual(errors, []);
      const total = readdirSync(vectors)
        .filter((name) => name.endsWith('.json') && name !== 'schema.json' && !FILES_NOT_YET_RUN.has(name))
        .reduce((sum, name) => sum + JSON.parse(readFileSync(join(vectors, name), 'utf8')).cases.length, 0);
      assert.ok(total > 0);
      assert.equal(result.vectors.count, total, 'every case of every file ran in Chromium');
      assert.deepEqual(result.vectors.failures, []);
      assert.deepEqual(result.vectors.skipped, [], 'the tools entry runs everything');
      assert.equal(result.leanVectors.count, total, 'the default entry met every case');
      assert.deepEqual(result.leanVectors.failures, []);
      // The browser runtime, compiled policies: the same cases as the default entry's own run, every configuration through its form.
      assert.equal(result.compiledVectors.count, total, 'the browser runtime met every case with compiled policies');
      assert.deepEqual(result.compiledVectors.failures, []);
      assert.deepEqual(result.compiledVectors.skipped, result.leanVectors.skipped);
      assert.ok(
        result.compiledVectors.compiledCount.policies > 0 && result.compiledVectors.compiledCount.dependencies > 0,
      );
      // The lean browser runtime (no shared controls): the browser runtime's cases, less those with a control.
      assert.equal(result.leanRuntimeVectors.count, total, 'the lean runtime met every case');
      assert.deepEqual(result.leanRuntimeVectors.failures, []);
      const noControls = Object.values(LEAN_RUNTIME_CANNOT_RUN.inputs);
      const leftForControls = result.leanRuntimeVectors.skipped.filter((line) =>
        noControls.some((reason) => line.endsWith(reason)),
      );
      assert.ok(leftForControls.length > 0 && leftForControls.length < total / 2, `${leftForControls.length}`);
      for (const line of result.leanRuntimeVectors.skipped)
        assert.ok(
          leftForControls.includes(line) || result.compiledVectors.skipped.includes(line),
          `the lean runtime left out ${line}`,
        );
      assert.ok(result.sameError, 'one RetryplanError for every entry');
      assert.deepEqual(result.controls, { lean: [], tools: [] }, 'the control checks hold in Chromium');
      const scenario = result.fetchScenario;
      assert.deepEqual(scenario.decision, { type: 'succeeded', attempts: 2, winner: 2, abortAttempts: [] });
      assert.equal(scenario.status, 200);
      assert.equal(scenario.body, 'done');
      assert.ok(scenario.elapsedMs >= 1000, 'waited for Retry-After: 1');
      assert.equal(scenario.seen.length, 2);
      assert.ok(scenario.seen.every((entry) => entry.key === scenario.idempotencyKey));
      assert.notEqual(scenario.seen[0].requestId, scenario.seen[1].requestId);
      // A same-origin request: the browser runtime sends the core's propagation headers (no CORS preflight for them).
      const sent = ['retryplan-attempt', 'retryplan-caller-retries', 'retryplan-timeout-ms'];
      assert.deepEqual(
        scenario.seen.map((entry) => entry.propagation.sort()),
        [sent, sent],
      );
      assert.deepEqual(result.error, { isError: true, isOurs: true, code: 'unknown_profile' });
      assert.equal(result.notCarried.isOurs, true);
      assert.equal(result.notCarried.code, 'unsupported');
      assert.equal(result.notCarried.field, 'Policy.fromConfig');
      assert.match(
        result.notCarried.message,
        /^`Policy\.fromConfig` cannot run here: it is not in the browser runtime: compile .*Policy\.fromCompiled.*retryplan\/tools/,
      );
      console.log(
        `chromium: ${result.vectors.count} vectors passed in retryplan/tools, ${result.vectors.failures.length} failed`,
      );
      console.log(
        `chromium: ${result.leanVectors.count - result.leanVectors.skipped.filter((line) => !/ step \d+ /.test(line)).length} vectors passed in retryplan (the rest left out as the Node test lists them), ${result.leanVectors.failures.length} failed`,
      );
      const { policies, dependencies } = result.compiledVectors.compiledCount;
      console.log(
        `chromium: the same vectors passed in the browser runtime with ${policies} compiled policies and ${dependencies} compiled dependencies, ${result.compiledVectors.failures.length} failed (${Math.round(result.passMs.compiled)} ms; the JSON pass ${Math.round(result.passMs.lean)} ms)`,
      );

      console.log(
        `chromium: the lean browser runtime passed ${total - result.leanRuntimeVectors.skipped.length} of them with compiled policies (${leftForControls.length} with a control left out), ${result.leanRuntimeVectors.failures.length} failed`,
      );

      const failures = [];
      for (const each of scenarios) {
        await scenarioServer.reset();
        const url = scenarioUrl(each, scenarioServer.port, closed, server.url);
        const observed = await page.evaluate(([s, u]) => window.__observe(s, u), [each, url]);
        const log = await scenarioServer.log(each.id);
        const differs = inChromium[each.id];
        const expect = differs === undefined ? each.expect : differs.expect(each.expect);
        for (const failure of check(expect, observed, log, each.server))
          failures.push(`${each.id}: ${failure} (${JSON.stringify(observed)})`);
      }
      assert.deepEqual(failures, []);
      assert.deepEqual(errors, []);
      console.log(
        `chromium: ${scenarios.length} helper scenarios (${Object.keys(inChromium).length} with the browser's own expectation)`,
      );
    });
  } finally {
    await server.close();
    scenarioServer.stop();
  }
});
