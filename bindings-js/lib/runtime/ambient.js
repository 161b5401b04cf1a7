// The browser runtime's lib/ambient.js (browser-entry.mjs puts it in
// browser/lib/ in place of lib/ambient.js): a page serves no request, so
// there is no ambient context (the runtime's wasm is built without the
// incoming side of propagation). retryFetch sends the core's outgoing headers
// (`Driver::outgoing_headers`: the attempt's remaining time, its number, the
// key, "a layer above retries") on a same-origin request, which needs no CORS
// preflight whatever its headers, and on a cross-origin one only when the
// caller opts in (`propagateCrossOrigin: true`): custom request headers make
// a cross-origin fetch need a preflight whose answer lists them in
// Access-Control-Allow-Headers.

/** No store in a page. */
export const useRequests = () => {};

/** No request being served. */
export const ambient = () => undefined;

/**
 * Whether retryFetch's attempts at `url` (the request's, absolute) carry the
 * core's headers: when the request is same-origin with the global scope (a
 * page's or a worker's `location`), or when `crossOrigin` (the caller's
 * `propagateCrossOrigin`) is true. Outside a page (no `location`) only then.
 */
export function propagates(_context, url, crossOrigin) {
  if (crossOrigin === true) return true;
  const origin = globalThis.location?.origin;
  return origin !== undefined && origin !== 'null' && new URL(url).origin === origin;
}

/** Never called: there is no ambient context. */
export const ended = () => {};
