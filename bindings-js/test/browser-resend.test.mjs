// A browser resends a request by itself (issue 25 item 2): Chromium sends a
// request again, a POST too, when the kept-alive connection it reused is
// reset before any answer, and neither the page nor retryFetch ever learns of
// it (one attempt, succeeded). Only the server can tell the two apart, by the
// Idempotency-Key retryFetch sends on every unsafe request: the server sees
// one key twice, never two unkeyed requests. The page's connection to the
// relay (serve.mjs) is kept alive here; server.py resets the first POST after
// reading it, and the relay resets the page's connection in turn.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { serve, repoRoot } from './serve.mjs';
import { withPage } from './chromium.mjs';
import { startScenarioServer } from './scenario-server.mjs';

const id = 'browser_resends_a_reset_post';
const scenario = {
  id,
  description: 'the first POST is reset after it was read; the next is created',
  server: [{ reset: true }, { status: 201, body: 'created' }],
};

test('Chromium resends a reset POST by itself: the server sees the one key twice', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'retryplan-resend-'));
  const file = join(dir, 'scenarios.json');
  writeFileSync(file, JSON.stringify({ scenarios: [scenario] }));
  const scenarioServer = await startScenarioServer(file);
  const server = await serve({ root: repoRoot, vectors: dir, scenarioPort: scenarioServer.port, keepAlive: true });
  try {
    await withPage(async (page, errors) => {
      await page.goto(`${server.url}/bindings-js/test/browser/resend.html`);
      const observed = await page.evaluate(async (url) => {
        const api = await import('/bindings-js/lib/browser.js');
        // A request first, so that a kept-alive connection to the server is there for the POST to reuse.
        await (await fetch('/bindings-js/package.json')).text();
        const { decision, response } = await api.retryFetch(
          url,
          { method: 'POST', body: 'order=5001' },
          { policy: api.Policy.profile('read') },
        );
        return { decision, status: response.status, body: await response.text() };
      }, `/s/${id}`);
      const log = await scenarioServer.log(id);
      assert.deepEqual(errors, []);
      assert.equal(log.length, 2, `the browser resent the POST by itself: ${JSON.stringify(log)}`);
      assert.equal(log[0].request_id, log[1].request_id, 'one attempt of retryFetch: its request id, resent');
      assert.deepEqual(
        [observed.decision.type, observed.decision.attempts, observed.status, observed.body],
        ['succeeded', 1, 201, 'created'],
        'retryFetch saw one attempt',
      );
      assert.ok(
        typeof log[0].idempotency_key === 'string' && log[0].idempotency_key.length > 0,
        'the POST carried a key',
      );
      assert.equal(
        log[1].idempotency_key,
        log[0].idempotency_key,
        'the resend carried the same key: the server can deduplicate it',
      );
    });
  } finally {
    await server.close();
    scenarioServer.stop();
    rmSync(dir, { recursive: true, force: true });
  }
});
