// A page's fetch refuses a keepalive request whose body is over 64 KiB before sending it (Fetch's keepalive
// quota), rejecting with the same opaque TypeError as a lost connection. retryFetch reads that as the
// caller's request (invalid_argument at `init.body`, after one attempt): not a lost connection, which would
// end an unkeyed POST in a false reconcile for a request the server never saw. Real Chromium, as the browser
// reviewer of session 23 found it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { serve, repoRoot } from './serve.mjs';
import { withPage } from './chromium.mjs';

test('Chromium: a keepalive POST over 64 KiB is refused unsent, an invalid argument; 64 KiB goes out', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'retryplan-keepalive-'));
  const server = await serve({ root: repoRoot, vectors: dir });
  try {
    await withPage(async (page, errors) => {
      await page.goto(`${server.url}/bindings-js/test/browser/resend.html`);
      const observed = await page.evaluate(async () => {
        const api = await import('/bindings-js/lib/browser.js');
        const policy = api.Policy.fromConfig({ maxAttempts: 3 });
        // A JSON body of `bytes` bytes (`{"pad":""}` is 10), as the test server's orders endpoint reads.
        const post = (bytes) =>
          api
            .retryFetch(
              '/api/orders',
              { method: 'POST', body: JSON.stringify({ pad: 'x'.repeat(bytes - 10) }), keepalive: true },
              { policy },
            )
            .then(
              ({ response }) => ({ status: response.status }),
              (error) => ({ name: error.name, code: error.code, field: error.field, cause: error.cause?.name }),
            );
        const over = await post(65537);
        // The server answers its first order busy: take that answer now, so that the 64 KiB request below is
        // placed in one attempt (a retry of a keepalive request while its first attempt is still in flight may
        // itself be refused: the quota counts every keepalive request in flight).
        await fetch('/api/orders', { method: 'POST', body: '{}' });
        return { over, within: await post(65536) };
      });
      assert.deepEqual(errors, []);
      assert.deepEqual(observed.over, {
        name: 'RetryplanError',
        code: 'invalid_argument',
        field: 'init.body',
        cause: 'TypeError',
      });
      // 64 KiB went out: the test server answered it busy once, then placed the order.
      assert.deepEqual(observed.within, { status: 201 });
    });
  } finally {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
