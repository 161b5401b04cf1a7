// Every shared helper scenario (tests/helpers/) through retryFetch in Node,
// against the one scenario server (server.py, started here with a pipe).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as api from 'retryplan';
import { check, observe } from './scenarios.js';
import { closedPort, scenarioUrl, startScenarioServer } from './scenario-server.mjs';

const { scenarios } = JSON.parse(readFileSync(new URL('../../tests/helpers/scenarios.json', import.meta.url), 'utf8'));
let server;
let closed;

before(async () => {
  server = await startScenarioServer();
  closed = await closedPort();
});
after(() => server?.stop());

test('the scenario file holds scenarios', () => assert.ok(scenarios.length >= 10));

for (const scenario of scenarios) {
  test(`node retryFetch: ${scenario.id}`, async () => {
    await server.reset();
    const observed = await observe(api, scenario, scenarioUrl(scenario, server.port, closed));
    const log = await server.log(scenario.id);
    assert.deepEqual(check(scenario.expect, observed, log, scenario.server), [], JSON.stringify(observed));
    if (scenario.request.host === 'invalid_dns')
      assert.equal(observed.cause?.code, 'ENOTFOUND', 'the DNS error is the cause');
  });
}
