// The numbers lib/ and the wasm exchange instead of strings and objects (the
// fast paths: reading an object from Rust costs more than a decision), in
// one table, for what the core's wire (lib/wire.js) does not carry. Each name
// is the Rust constant's it mirrors, in src/: test/tags.test.mjs reads those
// constants and fails when the two differ.

// The forms of a started attempt, `startAttempt` in lib/convert.js (src/lib.rs).
export const START_DECISION = 0;
export const START_ACTION = 1;

// A dependency's controls, and the bit of each in `_dependencyControls` (src/controls.rs).
export const CONTROL_BUDGET = 0;
export const CONTROL_BREAKER = 1;
export const CONTROL_SLOTS = 2;

// How a grant is settled (src/controls.rs).
export const SETTLE_SUCCESS = 0;
export const SETTLE_FAILURE = 1;
export const SETTLE_RELEASE = 2;
export const SETTLE_SPEND = 3;

// The calls of `_slotsCall` (src/controls.rs).
export const SLOTS_RELEASE = 0;
export const SLOTS_ACQUIRE = 1;
export const SLOTS_IN_USE = 2;
export const SLOTS_CAPACITY = 3;
