// The core's HTTP header names, exported once the wasm is instantiated (the
// entry calls `load`; ES module bindings are live, so importers see them).
import { _headers } from '../wasm/retryplan_js.js';
import { loadWire } from './wire.js';

/** Every response header the core reads for server guidance, lower case, in the order it consults them. */
export let GUIDANCE_HEADERS;
/** The header carrying the operation's idempotency key. */
export let IDEMPOTENCY_KEY_HEADER;
/** The header carrying each attempt's request id. */
export let REQUEST_ID_HEADER;

export function load() {
  const [guidance, idempotencyKey, requestId] = _headers();
  GUIDANCE_HEADERS = Object.freeze(guidance);
  IDEMPOTENCY_KEY_HEADER = idempotencyKey;
  REQUEST_ID_HEADER = requestId;
  loadWire();
}
