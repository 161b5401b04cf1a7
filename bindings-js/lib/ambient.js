// The ambient context of the request being served, for the helpers (Node and
// the tools entry; the browser runtime's lib/runtime/ambient.js has none).
// lib/server.js's middleware runs each request in an AsyncLocalStorage
// holding `{incoming, answer}`: the helpers start their drivers with the
// incoming context, write the core's headers on each attempt (retryFetch on
// the Node entry: outside a served request too), and leave the answer's
// headers of their last give-up for the middleware to write.
import { _driverAnswer, _driverOutgoing } from '../wasm/retryplan_js.js';
import { decided } from './convert.js';
import { headerObject } from './driver.js';

/** The middleware's AsyncLocalStorage (lib/server.js sets it when it is first used). */
let requests;

/** Makes `storage` the store the helpers read the ambient context from. */
export const useRequests = (storage) => {
  requests = storage;
};

/** The ambient context (`{incoming, answer}`) of the request being served, or undefined. */
export const ambient = () => requests?.getStore();

/** Whether retryFetch sends the core's headers outside a served request too (set by the Node entry). */
let everyAttempt = false;

/**
 * The Node entry's (lib/node.js): retryFetch sends the core's headers on
 * every attempt, inside a served request or not, as every language's HTTP
 * helpers do (a client that never says it retries lets the next hop retry
 * too: the layers' attempts multiply). A page does not: custom request
 * headers would make its cross-origin fetches need a CORS preflight.
 */
export const propagateEveryAttempt = () => {
  everyAttempt = true;
};

/** Whether an HTTP attempt carries the core's headers: inside a served request (`context`), or on the Node entry. */
export const propagates = (context) => context !== undefined || everyAttempt;

/** The core's request headers of attempt `attempt` at `nowMs` for a next hop speaking `protocol`, as an object. */
export const outgoingHeaders = (driver, attempt, nowMs, protocol = 'http') =>
  headerObject(decided(_driverOutgoing(driver, attempt, nowMs, protocol)));

/**
 * An outgoing helper's operation ended with `decision`: the last give-up
 * inside the request decides the answer's headers (the core's
 * `answer_headers`: "do not retry", or none).
 */
export function ended(context, driver, decision) {
  if (decision.type === 'gave_up') context.answer = decided(_driverAnswer(driver, 'http'));
}
