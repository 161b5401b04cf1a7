// The objects of the API that hold wasm memory (a policy, an operation, a
// control): each holds a handle of the wasm's table (src/objects.rs), given
// back by `free()` or by the garbage collector (a FinalizationRegistry).
import { _free } from '../wasm/retryplan_js.js';
import { refuse } from './args.js';
import { decided } from './convert.js';

export const HANDLE = Symbol('retryplan.handle');

/** The wasm handle `object` holds: 0 once freed, which the wasm refuses as freed. */
export const handle = (object) => object[HANDLE] ?? 0;
const FREED = 2 ** 32 - 1;

const objects = new FinalizationRegistry(_free);

/**
 * What an object that holds a large part of the wasm's memory (an operation,
 * a driver: its slot of the table) weighs on the JS heap's books: an
 * ArrayBuffer counts as memory outside the JS heap, so the collector runs as
 * forgotten ones pile up. Without it, a million forgotten operations weigh a
 * few tens of MB of JS objects and nothing is collected until the wasm's
 * memory, which never shrinks, has grown by their whole size.
 */
const WEIGHT = Symbol('retryplan.weight');
export const HEAVY = 512;

/**
 * The weights of freed objects, lent to the next heavy objects (at most
 * SPARE kept): making an ArrayBuffer costs more than the wasm object it
 * weighs for. Only a freed object's weight is lent: a forgotten one keeps its own.
 */
const spare = [];
const SPARE = 64;

/** Makes `object` hold `handle` (weighing `weight` bytes more on the collector's books). */
const hold = (object, handle, weight = 0) => {
  object[HANDLE] = handle;
  if (weight > 0) object[WEIGHT] = (weight === HEAVY && spare.pop()) || new ArrayBuffer(weight);
  objects.register(object, handle, object);
  return object;
};

/** `Symbol.dispose` where the engine has it (a name, not a statement at module scope: the module has no side effects). */
const DISPOSE = typeof Symbol.dispose === 'symbol' ? Symbol.dispose : Symbol('retryplan.dispose');

/** An object holding a wasm handle (`weight`: see HEAVY). */
export class Held {
  constructor(handle, weight) {
    hold(this, handle, weight);
  }

  /** Frees the wasm memory it holds (the garbage collector does it otherwise). Using it afterwards is an error. */
  free() {
    const handle = this[HANDLE];
    if (handle === undefined) return;
    this[HANDLE] = undefined;
    const weight = this[WEIGHT];
    if (weight?.byteLength === HEAVY && spare.length < SPARE) spare.push(weight);
    this[WEIGHT] = undefined;
    objects.unregister(this);
    _free(handle);
  }

  /** `using`: frees it (under a symbol of the module's own where the engine has no `Symbol.dispose`). */
  [DISPOSE]() {
    this.free();
  }
}

/** Makes an object of `type` around the handle a wasm function returned (or throws the error it returned). */
export const make = (type, handle) => hold(Object.create(type.prototype), decided(handle));

/** The refusal of argument `name`, which must be a `typeName` (BINDING's `instance`, in the core's template). */
const notA = (name, typeName) => refuse(name, 'instance', typeName);

/** The handle of `value`, which must be a `type` (`name` is the argument); 0 when absent and `optional`. */
export function handleOf(name, value, type, optional = false) {
  if (value == null && optional) return 0;
  if (!(value instanceof type)) throw notA(name, type.name);
  // A freed object's handle: one the wasm's table never makes (index 2^20-1),
  // so it is refused as freed, never read as absent (0).
  return value[HANDLE] ?? FREED;
}

/**
 * The brands of the classes an operation's options name (`dependency`,
 * `stats`, `incoming`), which lib/driver.js checks without importing their modules: a
 * page that never makes a Dependency ships none of lib/controls.js. Each
 * class answers true for its brand (a getter of its prototype).
 */
export const BRAND = {
  Dependency: Symbol('retryplan.Dependency'),
  Stats: Symbol('retryplan.Stats'),
  IncomingContext: Symbol('retryplan.IncomingContext'),
};

/** The handle of the optional argument `name`, which must be a `typeName` (see BRAND): 0 when absent. */
export function brandedHandle(name, value, typeName) {
  if (value == null) return 0;
  if (value[BRAND[typeName]] !== true) throw notA(name, typeName);
  return value[HANDLE] ?? FREED;
}
