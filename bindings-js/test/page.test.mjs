// The README's checkout pages as a browser team ships them: built by Vite for
// production with the bundler plugin (page-size.mjs), every output file
// gzipped (-9), wasm and JS together; then the built page run in headless
// Chromium against a local shop (test/serve.mjs `/api/orders`: busy once,
// then the order placed). A size is deterministic for a pinned toolchain, so
// it is a test; the figures are printed for the README.
//
// Issue 24's goals: the checkout page (a compiled policy and retryFetch) at
// most 30 KB, the same page with a Dependency (budget and breaker) at most
// 40 KB. NOT met: each is a `todo` test that measures and fails (reported,
// not failing the suite). The gates below hold the measured sizes, so the
// page cannot grow unnoticed: raising one is a decision a commit states.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PAGES, buildPage } from '../page-size.mjs';
import { readFileSync, statSync } from 'node:fs';
import { withPage } from './chromium.mjs';
import { serve } from './serve.mjs';

/**
 * The gates, in bytes (gzip -9, wasm + JS). The checkout page is built with
 * the lean runtime (`retryplan({ runtime: 'lean' })`: no shared controls,
 * page-size.mjs PAGES) since issue 24's feature runtimes (session 7): 54779 B
 * (42591 B wasm + 12188 B JS), where the same page with the browser runtime
 * shipped 59734 B (47546 + 12188) in the same run, so its gate is 55100 B.
 * The shop page (a Dependency) keeps the browser runtime: 60527 B (47546 +
 * 12981) in that run, its gate as it was. Before that, the sizes measured when the
 * browser runtime was built (checkout 59125 B = 47018 B wasm + 12107 B JS;
 * shop 59917 B = 47018 + 12899; main shipped 91603 B = 72387 + 19216 and
 * 91650 B = 72387 + 19263, its default entry's whole wasm and glue), plus
 * about 0.3 KB. Then issue 27: main after the core's propagation merge
 * shipped 59564 B (47530 + 12034) and 60355 B (47530 + 12825), over the
 * gates with nothing of the binding's (the driver reads the next hop's
 * `retryplan-retryable`); with the binding's share (the driver handed that
 * header's value, the runtime's empty ambient-context stubs in the helpers)
 * 59729 B (47548 + 12181) and 60519 B (47548 + 12971), measured in the same
 * session: +165 B and +164 B. So the gates are those plus about 0.3 KB.
 * Then the runtime's retryFetch sends the core's outgoing propagation
 * headers on same-origin requests (its wasm carries `_driverOutgoing`, the
 * core's `Driver::outgoing_headers`): 61078 B (48757 + 12321) and 61874 B
 * (48757 + 13117), main 59734 B (47546 + 12188) and 60527 B (47546 + 12981)
 * measured in the same session: +1344 B and +1347 B; the gates those plus
 * about 0.3 KB. On the merged tree of session 7 (lean checkout page,
 * outgoing headers, OpenTelemetry's JS on the Node entry only): 56391 B
 * (43908 + 12483) and 62048 B (48765 + 13283), so 56500 B and 62200 B.
 * Session 10's `EndingResult.readable_until_ms` (the driver keeps each held
 * result's abort time, the wire's finish carries it, JS reads it): the
 * checkout page 56572 B (44053 + 12519), its lean wasm +131 B gzipped against
 * main's build of the same session, so 56650 B.
 * Session 18's redirects (retryFetch hands in `response.redirected`, the core
 * reads a redirected response's retryable failure as ambiguous: one more
 * argument of `_driverResponse` and `Class::after_redirect`): the checkout
 * page 56666 B (43711 + 12955), its lean wasm +46 B raw, +43 B gzipped
 * (90678 B, 43434 B) against main's build of the same session (90632 B,
 * 43391 B), so 56720 B. The shop page (62181 B) stays under its gate.
 * Session 18's typed API refusing times past MAX_MS in the core (every call
 * that takes a clock reading, and classify's retry_after_ms / pushback; the
 * bindings refused them already, a Rust caller did not): 57041 B (44100 +
 * 12941) and 62549 B (48839 + 13710), against 56613 B (43672 + 12941) and
 * 62108 B (48401 + 13707) with the base's wasm in the same session: +428 B
 * and +441 B, all wasm (each checked entry point about +100 B raw, classify
 * +140 B). So 57350 B and 62900 B. On the merged tree of session 18 (those
 * two, and retryFetch's own fixes: a body it cannot send again recognised
 * whatever its kind, both signals followed, the key under one header, a
 * fetch resolving to no Response refused: about +225 B of JS): 57336 B
 * (44145 + 13191) and 62842 B (48893 + 13949), within the gates.
 * Session 19 (issue 23's drift between the helpers: a request's own
 * Idempotency-Key read without the whitespace around it, the core's one
 * rule, about +16 B; the driver keeping the status of a response that is no
 * HTTP status for the ending's words, about +90 B): 57456 B (44254 + 13202)
 * and 62964 B (49002 + 13962), against 57348 B (44145 + 13203) and 62854 B
 * (48893 + 13961) for the base measured in the same run: +108 B and +110 B,
 * all wasm. So 57500 B and 63000 B.
 * Session 20: the core's `request_name` exported to every wasm (`_requestName`:
 * a request's name with the OpenTelemetry conventions' sensitive query
 * values `REDACTED`, the same rule in every language; size.mjs's
 * RUNTIME_LIMIT): 58306 B (45103 + 13203) and 63881 B (49919 + 13962),
 * against 57456 B (44254 + 13202) and 62964 B (49002 + 13962) for the base
 * built in the same run: +850 B and +917 B, all wasm but 1 B. So 58350 B
 * and 63950 B.
 * And session 20's policy field `server_guidance.headers` (guidance read
 * from Retry-After alone, as urllib3 reads it; every runtime's response
 * reading and compiled-form reader carry it): +82 B each on its own branch
 * against the same base. With the rest of session 20 merged (a key the
 * host gives an operation winning over a served request's caller's; each
 * attempt's fetch following the caller's signal too): 58428 B (45187 +
 * 13241) and 64057 B (50044 + 14013), +972 B and +1093 B against 57456 B
 * and 62964 B. So 58500 B and 64150 B.
 * Session 21's whole-number rules (+188 B of wasm on the shop page) and
 * its one reader of a response (size.mjs's RUNTIME_LIMIT) left them at
 * 58256 B and 63975 B merged: the gates stay.
 * Session 23's CORS and offline rules and the core's new words left them at
 * 58472 B and 64124 B. Session 24's keepalive quota (a page's keepalive
 * body over 64 KiB, refused unsent, read as the caller's request, not as a
 * lost connection: helpers.js) is +74 B and +71 B in the same run: 58546 B
 * and 64195 B. So 58600 B and 64250 B.
 * Session 25's outcome fields spelt otherwise refused and the errors'
 * `rule` and `header` (size.mjs's LIMIT) are +158 B and +144 B against
 * session 24's 58553 B and 64207 B: 58711 B and 64351 B. So 58800 B and
 * 64400 B.
 * Session 26: a timer that fires beside a clock standing still refused
 * instead of armed again forever (lib/host.js `still_clock`) is +55 B and
 * +54 B (58766 B and 64405 B); a returned response's body following the
 * caller's signal through one listener per signal, weakly (helpers.js
 * `followAfterReturn`), instead of an AbortSignal.any per attempt that Node
 * keeps on a long-lived signal for good, and the operations on one signal
 * woken through one listener, removed with the last (host.js `listen`):
 * +202 B and +203 B, 58968 B and 64608 B; the still clock judged over a
 * whole wait too, for waits under 50 ms (a frozen clock with a jittered
 * 10 ms wait re-armed it forever), +63 B and +62 B: 59031 B and 64670 B.
 * So 59100 B and 64700 B.
 * Session 27: a timeout a caller's deadline caused is not counted by the
 * shared controls (the core's `cut_by_caller`; size.mjs): 59140 B (+109) and
 * 64789 B (+119), so 59200 B and 64800 B. A redirect loop past fetch's 20
 * rethrown, not retried (helpers.js `invalid`): 59152 B (+12) and 64802 B
 * (+13), so 59200 B and 64900 B. retryFetch's two signals listened to
 * without AbortSignal.any (helpers.js `eitherSignal`): 59180 B and 64829 B,
 * within them.
 * Session 28: the still-clock rule moved from lib/host.js into the core (the
 * wire's `timer_ended`; size.mjs): 59411 B (+214 against 59197 B) and
 * 65085 B (+206 against 64879 B), so 59500 B and 65100 B. The core's
 * refusal of an HTTP helper's error called a success (size.mjs): 59469 B and
 * 65166 B, so 59500 B and 65200 B; with the diff review's changes (the
 * refusal's cause on its every path): 59506 B and 65199 B, so 59600 B and
 * 65300 B.
 * Session 29: the core's readings that follow the specs and peers' tests (an
 * interim 1xx as a malformed response, a Byte Sequence's base64 checked, a
 * RateLimit Token name, a cached response's rate-limit fields not read, an
 * AWS table code at any status; size.mjs): 59759 B (+253) and 65515 B
 * (+316), so 59800 B and 65600 B.
 */
const GATE = { checkout: 59_800, shop: 65_600 };
/** Issue 24's goals, in bytes. */
const GOAL = { checkout: 30 * 1024, shop: 40 * 1024 };

const built = {};

/** Builds `name`, runs it in Chromium (its placeOrder against the local shop), and keeps what was shipped and seen. */
async function buildAndRun(name) {
  return buildPage(name, async (dist) => {
    const server = await serve({ root: dist, vectors: dist });
    try {
      return await withPage(async (page, errors) => {
        await page.goto(`${server.url}/`);
        await page.waitForFunction(() => typeof window.placeOrder === 'function', null, { timeout: 30000 });
        const placed = await page.evaluate(() =>
          window.placeOrder({ cart: 41, items: ['tea'] }).then(
            (value) => ({ value }),
            (error) => ({ error: String(error?.stack ? error.stack : error) }),
          ),
        );
        const seen = await (await fetch(`${server.url}/api/seen`)).json();
        return { placed, seen, errors };
      });
    } finally {
      await server.close();
    }
  });
}

test('the README shows both pages as they are built (examples/checkout-page.js, examples/shop-page.js)', () => {
  const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
  for (const file of ['checkout-page.js', 'shop-page.js']) {
    assert.ok(
      readme.includes(`\`\`\`js\n${readFileSync(new URL(`../examples/${file}`, import.meta.url), 'utf8')}\`\`\``),
      file,
    );
  }
});

test("the pages' policy is the checkout profile, field for field (a page cannot call Policy.profile)", () => {
  // Without the profile's attempt timeout, reserve and minimum useful attempt, one hung attempt took the whole
  // 800 ms (the default attempt timeout is 3 s), and the page never retried the way the README's checkout does.
  const read = (path) => JSON.parse(readFileSync(new URL(path, import.meta.url), 'utf8'));
  assert.deepEqual(read('../examples/checkout.policy.json'), read('../../examples/policies/checkout.json'));
});

for (const name of ['checkout', 'shop']) {
  test(`the ${name} page, built by Vite with the plugin, places an order in Chromium through the browser runtime`, async () => {
    const { shipped, used } = await buildAndRun(name);
    built[name] = shipped;
    assert.deepEqual(used.errors, []);
    assert.deepEqual(used.placed, { value: { placed: { cart: 41, items: ['tea'] } } });
    // Busy once, then placed: two POSTs, one idempotency key (the policy is keyed), a fresh request id each.
    assert.equal(used.seen.length, 2);
    assert.ok(
      used.seen.every((each) => each.method === 'POST' && each.key === used.seen[0].key && each.key !== undefined),
    );
    assert.notEqual(used.seen[0].requestId, used.seen[1].requestId);
    // The order is same-origin: the page sends the core's propagation headers (no CORS preflight for them).
    const sent = ['retryplan-attempt', 'retryplan-caller-retries', 'retryplan-timeout-ms'];
    assert.deepEqual(
      used.seen.map((each) => each.propagation.sort()),
      [sent, sent],
    );
    // What was shipped: one wasm (the runtime's: the lean one for the checkout page), the page's JS, no JSON and no configuration reader.
    const wasm = shipped.files.filter((file) => file.kind === 'wasm');
    assert.equal(wasm.length, 1, 'one wasm file');
    const runtimeDir = PAGES[name].plugin.runtime === 'lean' ? 'browser-lean' : 'browser';
    assert.equal(
      wasm[0].raw,
      statSync(new URL(`../${runtimeDir}/wasm/retryplan_js_bg.wasm`, import.meta.url)).size,
      `the ${runtimeDir} runtime's wasm`,
    );
    console.log(
      `${name} page: ${shipped.total} B gzipped (wasm ${shipped.wasm} B + JS ${shipped.js} B); gate ${GATE[name]} B, goal ${GOAL[name]} B`,
    );
  });

  test(`the ${name} page ships at most its gate (wasm + JS, gzip -9)`, () => {
    const shipped = built[name];
    assert.ok(shipped !== undefined, 'built by the test above');
    assert.ok(
      shipped.total <= GATE[name],
      `${shipped.total} B (wasm ${shipped.wasm} + JS ${shipped.js}) above the gate of ${GATE[name]} B`,
    );
  });

  test(`issue 24's goal: the ${name} page ships at most ${GOAL[name]} B`, {
    todo: `not met: the page's runtime's wasm alone is about ${name === 'checkout' ? 42 : 46} KB (README, "Size and speed")`,
  }, () => {
    const shipped = built[name];
    assert.ok(shipped !== undefined, 'built by the test above');
    assert.ok(shipped.total <= GOAL[name], `${shipped.total} B, ${shipped.total - GOAL[name]} B over the goal`);
  });
}
