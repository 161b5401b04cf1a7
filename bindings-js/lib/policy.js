// `Policy`: a validated, immutable policy (`Policy.fromConfig(config)`,
// `Policy.profile(name)`), read by the core's one configuration reader.
import { _policyFromCompiled, _policyFromConfig, _policyInfo, _policyProfile } from '../wasm/retryplan_js.js';
import { compiledForm, text } from './args.js';
import { notConstructed } from './error.js';
import { decidedConfig } from './spelling.js';
import { Held, handle, make } from './objects.js';
import { PROFILE_NAMES } from './generated/wire.js';
import { numbers } from './wire.js';

const INFO = Symbol('retryplan.info');

/** `[maxAttempts, sendsIdempotencyKey, totalTimeoutMs]`, read once (a policy never changes). */
const info = (policy) => (policy[INFO] ??= numbers(_policyInfo(handle(policy))).slice(0, 3));

export class Policy extends Held {
  /** Not how a policy is made: `unsupported`, naming the functions that make one. */
  constructor() {
    throw notConstructed(
      'Policy',
      'Policy.fromCompiled(form), or Policy.fromConfig(config) and Policy.profile(name) outside the browser runtime',
    );
  }

  /**
   * Validates a policy object (camelCase keys, snake_case values; every field
   * optional), read by the core's one reader: errors and field paths are those
   * of every other language.
   */
  static fromConfig(config) {
    return make(this, decidedConfig(_policyFromConfig(config), config));
  }

  /**
   * Reads a compiled policy (`compilePolicy` of retryplan/tools, or the bytes
   * of `retryplan compile`) without the configuration reader; a form that is
   * not one, of another version, damaged or a dependency's is refused with the
   * core's code.
   */
  static fromCompiled(form) {
    return make(this, _policyFromCompiled(compiledForm('form', form)));
  }

  /** A built-in profile (`read`, `checkout`, `write_keyed`, `write_strict`, `background`, `aws_standard`). */
  static profile(name) {
    return make(this, _policyProfile(text('name', name)));
  }

  /** Attempts allowed in all, the first included. */
  get maxAttempts() {
    return info(this)[0];
  }

  /** True when requests carry the idempotency key header (keyed and unsafe operations). */
  get sendsIdempotencyKey() {
    return info(this)[1] === 1;
  }

  /** The operation's total timeout in ms: every attempt and wait fit in it. */
  get totalTimeoutMs() {
    return info(this)[2];
  }

  /** @deprecated The old name of `totalTimeoutMs`, kept for one release. */
  get totalBudgetMs() {
    return this.totalTimeoutMs;
  }
}

/** The built-in profile names. */
export const profileNames = () => [...PROFILE_NAMES];
