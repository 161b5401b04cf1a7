// The first hop of the three-hop scenario (hops.test.mjs): a page built by Vite as the README's checkout pages
// are (its policy compiled when the page is built, the browser runtime's retryFetch), served from the Python
// service's origin, so its order is a same-origin request and carries the core's propagation headers.
import { Policy, retryFetch } from 'retryplan';
import form from './page.policy.json?retryplan';
import onceForm from './once.policy.json?retryplan';

const policy = Policy.fromCompiled(form);
/** A read the page tries once: it tells the service it does not retry, so the service is the layer that does. */
const once = Policy.fromCompiled(onceForm);

/** Places `order` through the Python service; what the page saw, with its own clock's elapsed ms. */
export async function placeOrder(order) {
  const started = performance.now();
  const init = { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(order) };
  try {
    const { decision, response, idempotencyKey } = await retryFetch('/api/order', init, { policy });
    const body = await response.text();
    return { decision, status: response.status, body, idempotencyKey, elapsedMs: performance.now() - started };
  } catch (error) {
    return { error: String(error), decision: error?.decision, elapsedMs: performance.now() - started };
  }
}

/** Reads the stock through the Python service, trying once; what the page saw. */
export async function checkStock() {
  try {
    const { decision, response } = await retryFetch('/api/stock', {}, { policy: once });
    return { decision, status: response.status, body: await response.text() };
  } catch (error) {
    return { error: String(error), decision: error?.decision };
  }
}

/**
 * The propagation headers retryFetch would send to `url` with `options` (recorded by a stand-in fetch: nothing
 * leaves the page), by name, sorted: the same-origin rule against this page's real origin.
 */
export async function propagationFor(url, options = {}) {
  let sent;
  const fetch = async (_input, init) => {
    sent = [...init.headers.keys()].filter((name) => name.startsWith('retryplan-')).sort();
    return new Response('ok');
  };
  await retryFetch(url, {}, { ...options, policy, fetch });
  return sent;
}
