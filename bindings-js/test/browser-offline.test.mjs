// A browser that says it is offline (HTML's `navigator.onLine` false: it "will not contact the network")
// fails every fetch with the same opaque TypeError as a reset connection. retryFetch reads a TypeError as
// connection_lost (may have been processed) except when the browser was offline both when the attempt
// began and when it failed: then nothing was sent, and a POST is retried, never reconciled. Chromium taken
// offline by the test (playwright's `setOffline`), as the reviewer of session 23 did.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { serve, repoRoot } from './serve.mjs';
import { withPage } from './chromium.mjs';

test('offline in Chromium: an unsafe POST is not sent, so it is retried and gives up, never reconciled', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'retryplan-offline-'));
  const server = await serve({ root: repoRoot, vectors: dir });
  try {
    await withPage(async (page, errors) => {
      await page.goto(`${server.url}/bindings-js/test/browser/resend.html`);
      await page.evaluate(() => import('/bindings-js/lib/browser.js'));
      await page.context().setOffline(true);
      const observed = await page.evaluate(async () => {
        const api = await import('/bindings-js/lib/browser.js');
        const policy = api.Policy.fromConfig({
          maxAttempts: 3,
          backoff: { kind: 'constant', baseMs: 0, multiplier: 1, capMs: 0 },
          jitter: { kind: 'none' },
        });
        const onLine = navigator.onLine;
        const ending = await api.retryFetch('/api/orders', { method: 'POST', body: 'order=5001' }, { policy }).then(
          () => undefined,
          (error) => error,
        );
        return {
          onLine,
          name: ending?.name,
          reason: ending?.reason,
          attempts: ending?.attempts,
          lastOutcome: ending?.lastOutcome,
        };
      });
      await page.context().setOffline(false);
      assert.deepEqual(errors, []);
      assert.equal(observed.onLine, false, 'Chromium says it is offline');
      assert.deepEqual(
        [observed.name, observed.reason, observed.attempts],
        ['GaveUpError', 'attempts_exhausted', 3],
        JSON.stringify(observed),
      );
    });
  } finally {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
