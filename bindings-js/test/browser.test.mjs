// The package in headless Chromium: every vector through the browser entry, and
// one retryFetch scenario (503 + Retry-After, then 200) against a local server.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { serve, repoRoot } from './serve.mjs';
import { withPage, resultOf } from './chromium.mjs';

const vectors = process.env.RETRYPLAN_VECTORS ?? fileURLToPath(new URL('../../tests/conformance/', import.meta.url));

test('vectors and a fetch scenario in Chromium', async () => {
  const server = await serve({ root: repoRoot, vectors });
  try {
    await withPage(async (page, errors) => {
      const result = await resultOf(page, `${server.url}/bindings-js/test/browser/`);
      assert.equal(result.crashed, undefined, result.crashed);
      assert.deepEqual(errors, []);
      const total = readdirSync(vectors)
        .filter((name) => name.endsWith('.json') && name !== 'schema.json')
        .reduce((sum, name) => sum + JSON.parse(readFileSync(join(vectors, name), 'utf8')).cases.length, 0);
      assert.ok(total > 0);
      assert.equal(result.vectors.count, total, 'every case of every file ran in Chromium');
      assert.deepEqual(result.vectors.failures, []);
      const scenario = result.fetchScenario;
      assert.deepEqual(scenario.decision, { type: 'succeeded', attempts: 2, winner: 2, abortAttempts: [] });
      assert.equal(scenario.status, 200);
      assert.equal(scenario.body, 'done');
      assert.ok(scenario.elapsedMs >= 1000, 'waited for Retry-After: 1');
      assert.equal(scenario.seen.length, 2);
      assert.ok(scenario.seen.every((entry) => entry.key === scenario.idempotencyKey));
      assert.notEqual(scenario.seen[0].requestId, scenario.seen[1].requestId);
      assert.deepEqual(result.error, { isError: true, isOurs: true, code: 'unknown_profile' });
      console.log(`chromium: ${result.vectors.count} vectors passed, ${result.vectors.failures.length} failed`);
    });
  } finally {
    await server.close();
  }
});
