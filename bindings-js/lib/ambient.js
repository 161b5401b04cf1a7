// The ambient context of the request being served, for the helpers (Node and
// the tools entry; the browser runtime's lib/runtime/ambient.js has none).
// lib/server.js's middleware runs each request in an AsyncLocalStorage
// holding `{incoming}`: the helpers start their drivers with the
// incoming context, write the core's headers on each attempt (retryFetch on
// the Node entry: outside a served request too), and hand their endings to
// the request's answer (the core's, held with the incoming context), which
// the middleware writes.
import { _incomingAnswer } from '../wasm/retryplan_js.js';
import { decided } from './convert.js';
import { handle } from './objects.js';

/** The middleware's AsyncLocalStorage (lib/server.js sets it when it is first used). */
let requests;

/** Makes `storage` the store the helpers read the ambient context from. */
export const useRequests = (storage) => {
  requests = storage;
};

/** The ambient context (`{incoming}`) of the request being served, or undefined. */
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

/** An outgoing helper's operation (its driver's) ended inside the request served in `context`: its answer records the ending. */
export const ended = (context, driver) => decided(_incomingAnswer(handle(context.incoming), driver));
