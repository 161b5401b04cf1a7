// The core's HTTP header names (generated from the core's tables), and the
// entry's `load`, called once the wasm is instantiated.
import { loadWire } from './wire.js';

export { GUIDANCE_HEADERS, IDEMPOTENCY_KEY_HEADER, REQUEST_ID_HEADER } from './generated/wire.js';

export const load = loadWire;
