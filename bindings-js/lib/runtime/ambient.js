// The browser runtime's lib/ambient.js (browser-entry.mjs puts it in
// browser/lib/ in place of lib/ambient.js): a page serves no request, so
// there is no ambient context, and the runtime's wasm is built without the
// propagation functions: custom request headers would make every
// cross-origin retryFetch need a CORS preflight the server must allow. The
// helpers find no context and write no propagation headers.

/** No store in a page. */
export const useRequests = () => {};

/** No request being served. */
export const ambient = () => undefined;

/** Never called: retryFetch's attempts carry no propagation headers in a page (no CORS preflight for them). */
export const outgoingHeaders = () => ({});

/** No request being served, and no headers outside one. */
export const propagates = () => false;

/** Never called: there is no ambient context. */
export const ended = () => {};
