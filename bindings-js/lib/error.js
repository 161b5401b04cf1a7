// The error class every entry shares (`instanceof RetryplanError` holds for an
// error of any entry), and the words of an error that carries no message of
// the core's (the browser runtime hands over codes and fields only).
import { BLAMES } from './rules.js';

/** Misuse of the engine (never a failed attempt: those are decisions). */
export class RetryplanError extends Error {
  constructor(code, message) {
    super(message);
    this.name = 'RetryplanError';
    /** Stable, language-neutral code: the core's `Error::code()`. */
    this.code = code;
    /** Who must act: the core's `Error::blame()` for this code (`caller`, `configuration`, `server`, `environment`). */
    this.blame = BLAMES[code];
  }
}

/**
 * An error's words when there is no message to compose (the browser
 * runtime): its code and what it names, e.g. `invalid_argument at \`nowMs\``.
 */
export const codeWords = (code, field) => (field === undefined ? code : `${code} at \`${field}\``);

/** What the browser runtime does not carry, and where to find it instead. */
const ELSEWHERE =
  'it is not in the browser runtime: compile the configuration when the page is built (retryplan/rollup, ' +
  'compilePolicy or compileDependency of retryplan/tools, or `retryplan compile`) and load it with ' +
  'Policy.fromCompiled or Dependency.fromCompiled, or import it from retryplan/tools';

/** Where propagation across hops runs: a server's side, which a page is not. */
export const SERVED_ELSEWHERE =
  'it is not in the browser runtime: a page serves no request; propagation across hops (IncomingContext, ' +
  "the propagation middleware, the outgoing and answer headers) is in Node's retryplan and in retryplan/tools";

/** Where the shared controls are when the lean browser runtime (`retryplan({ runtime: 'lean' })`) was built without them. */
export const CONTROLS_ELSEWHERE =
  "it is not in the lean browser runtime (the bundler plugin's `runtime: 'lean'`), which leaves the shared " +
  'controls out: build the page with the default runtime (`retryplan()`) to use a Dependency or RetrySlots';

/**
 * The error of a call the browser runtime does not carry (`what`, as the
 * page wrote it: `Policy.fromConfig`): `unsupported`, `field` naming it. Thrown
 * by the stubs browser-entry.mjs writes into the browser glue in place of
 * the wasm functions the runtime is built without.
 */
export function notCarried(what, elsewhere = ELSEWHERE) {
  // The core's words for `unsupported` ("`{0}` cannot run here: {1}").
  const error = new RetryplanError('unsupported', `\`${what}\` cannot run here: ${elsewhere}`);
  error.field = what;
  return error;
}

/** The error of `new Policy(...)` (`type` is the class): objects are made by its static functions only. */
export function notConstructed(type, makers) {
  const error = new RetryplanError(
    'unsupported',
    `\`new ${type}(...)\` cannot run here: a ${type} is made by ${makers}`,
  );
  error.field = type;
  return error;
}
