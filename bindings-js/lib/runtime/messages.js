// The browser runtime's lib/messages.js (browser-entry.mjs puts it in
// browser/lib/ in place of lib/messages.js): no messages. Its wasm is built
// without the cargo feature `messages`, so errors cross as codes, fields and
// typed fields only, and the core's templates (lib/rules.js, 11 KB) stay out
// of the page: every function here answers `undefined`, and lib/convert.js
// and lib/helpers.js fall back to the code and field (lib/error.js
// `codeWords`). The words are the tools entry's and Node's.

/** No rules: their table is not in the browser runtime. */
export const rule = () => -1;

/** No message to compose: the wasm hands over none. */
export const compose = () => undefined;

/** No rule's words either (an `invalid_argument` then carries the rule's key as its `rule`: see convert.js). */
export const ruleOf = () => undefined;

/** No template to fill. */
export const fill = () => undefined;

/** No words for the binding's own refusals: convert.js names the code, the field and the rule's key. */
export const bindingMessage = () => undefined;
