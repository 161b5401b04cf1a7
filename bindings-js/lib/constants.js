// The core's HTTP header names (generated from the core's tables), and the
// entry's `load`, called once the wasm is instantiated.
import { loadWire } from './wire.js';

import { RETRYABLE_HEADER } from './generated/propagation.js';
import { GUIDANCE_HEADERS } from './generated/wire.js';

export { GUIDANCE_HEADERS, IDEMPOTENCY_KEY_HEADER, REQUEST_ID_HEADER } from './generated/wire.js';

/** The response headers a driver reads (src/outcomes.rs `Guidance`): the guidance headers, then the next hop's "do not retry". */
export const RESPONSE_HEADERS = Object.freeze([...GUIDANCE_HEADERS, RETRYABLE_HEADER]);

export const load = loadWire;
