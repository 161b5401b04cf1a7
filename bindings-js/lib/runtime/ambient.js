// The browser runtime's lib/ambient.js (browser-entry.mjs puts it in
// browser/lib/ in place of lib/ambient.js): a page serves no request, so
// there is no ambient context, and the runtime's wasm is built without the
// propagation functions. The helpers find none and write nothing more.

/** No store in a page. */
export const useRequests = () => {};

/** No request being served. */
export const ambient = () => undefined;

/** Never called: there is no ambient context. */
export const outgoingHeaders = () => ({});

/** Never called: there is no ambient context. */
export const ended = () => {};
