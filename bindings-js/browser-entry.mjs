// Makes browser/lib/, the JS of the browser runtime (`retryplan` under the
// `browser` and `default` conditions), from lib/ (called by build.sh after
// the runtime's wasm and glue are in browser/wasm/); and browser-lean/lib/,
// the same JS beside the lean runtime's glue (browser-lean/wasm/: the
// runtime without the shared controls, which the bundler plugin takes with
// `retryplan({ runtime: 'lean' })`, `retryplan/lean` in the package). As tools-entry.mjs does
// for the tools entry: every module of lib/ that uses the wasm is copied
// beside the runtime's glue, the modules that hold no wasm state and compose
// no message are re-exported from lib/ (one RetryplanError, one set of
// ending classes for every entry), and lib/runtime/ replaces a few modules
// (messages.js: the runtime carries no message data, so no templates; the
// entry is lib/browser.js, beside the runtime's glue). Then the glue gets a
// stub for every function of the default entry's glue that the runtime's
// wasm is built without (the configuration reader): each throws
// `unsupported` naming what the page called and what to do instead
// (lib/error.js `notCarried`), never "undefined is not a function".
import { appendFileSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** Shared with every entry: re-exported from lib/ (with every generated module). */
const SHARED = new Set(['endings.js', 'entropy.js', 'error.js', 'failures.js', 'json.js', 'rules.js', 'words.js']);
/** Not in the runtime: the Node entry, the tools' additions, the bundler plugin, the server side of propagation, OpenTelemetry. */
const LEFT_OUT = new Set(['node.js', 'tools.js', 'rollup.js', 'propagation.js', 'server.js', 'otel.js']);

/**
 * The wasm functions the runtime is built without, by the glue's name: what
 * a page calls to reach each one. A function missing from the runtime's glue
 * and not listed here fails the build (so that this table stays whole).
 */
export const NOT_CARRIED = {
  _policyFromConfig: 'Policy.fromConfig',
  _policyProfile: 'Policy.profile',
  _dependencyFromConfig: 'Dependency.fromConfig',
  _budgetNew: 'new RetryBudget',
  _breakerNew: 'new CircuitBreaker',
};

/**
 * The wasm functions only the modules the runtime leaves out (LEFT_OUT)
 * import: nothing a page runs reaches them, so they get no stub. lib/otel.js's
 * (OpenTelemetry: the Node and tools entries').
 */
export const ONLY_LEFT_OUT = new Set(['_driverEventSignals']);

/**
 * The wasm functions of propagation's incoming side and answer (the crate's
 * feature `propagation`), which the runtime is built without: a page serves
 * no request. Their stubs say so (lib/error.js `SERVED_ELSEWHERE`); only the
 * Driver's `answerHeaders` can reach them (lib/propagation.js and
 * lib/server.js are not in the runtime). The outgoing headers
 * (`_driverOutgoing`) are in the runtime: its retryFetch sends them.
 */
export const NOT_SERVED = {
  _incomingRead: 'IncomingContext.read',
  _incomingFields: 'IncomingContext',
  _driverAnswer: 'Driver#answerHeaders',
  _incomingAnswer: 'IncomingContext',
};

/**
 * The wasm functions of the shared controls (the crate's feature `controls`),
 * which the lean runtime is built without, by what a page calls to reach
 * each one: only `Dependency.fromCompiled` and `new RetrySlots` make a
 * control there (`Dependency.fromConfig`, `new RetryBudget` and `new
 * CircuitBreaker` are NOT_CARRIED in both runtimes), so the rest have no
 * object to run on. Their stubs say to build the page with the default
 * runtime (lib/error.js `NOT_IN_LEAN`). A function of the controls missing
 * from the lean glue and not listed here fails the build.
 */
export const NOT_IN_LEAN = {
  _dependencyFromCompiled: 'Dependency.fromCompiled',
  _slotsNew: 'new RetrySlots',
  _dependencyShare: 'Dependency#clone',
  _dependencyControl: 'Dependency#budget',
  _budgetOnRequest: 'RetryBudget#onRequest',
  _budgetTryRetry: 'RetryBudget#tryRetry',
  _budgetSettle: 'RetryBudget#onSuccess',
  _budgetAcquire: 'RetryBudget#acquire',
  _budgetRelease: 'RetryBudget#release',
  _breakerTryAcquire: 'CircuitBreaker#tryAcquire',
  _breakerSettle: 'CircuitBreaker#onSuccess',
  _grantsOutstanding: 'RetryBudget#chargesOutstanding',
  _chargeCost: 'RetryCharge#cost',
  _permitProbe: 'BreakerPermit#probe',
  _slotsSettle: 'RetrySlots#tryAcquire',
  _slotsState: 'RetrySlots#inUse',
};

/**
 * The declarations of lib/index.d.ts that the runtime does not carry, and
 * what browser/lib/browser.d.ts (the types of the `browser` condition) makes
 * of each: deprecated, naming what to do instead, and a static function's
 * result `NotCarried` (NOT_CARRIED_DECLARATION below), so that using it is a type error:
 * reading from it, and passing it on as a `policy` or `dependency` (which a
 * `never` would allow: it is assignable to every type).
 */
const NOT_CARRIED_TYPES = [
  [
    'static fromConfig(config: PlainConfig<PolicyConfig>): Policy;',
    'Policy.fromConfig',
    'static fromConfig(config: PlainConfig<PolicyConfig>): NotCarried;',
  ],
  ['static profile(name: ProfileName): Policy;', 'Policy.profile', 'static profile(name: ProfileName): NotCarried;'],
  [
    'static fromConfig(config: PlainConfig<DependencyConfig>): Dependency;',
    'Dependency.fromConfig',
    'static fromConfig(config: PlainConfig<DependencyConfig>): NotCarried;',
  ],
  ['constructor(config: BudgetConfig);', 'new RetryBudget', 'constructor(config: BudgetConfig);'],
  ['constructor(config: BreakerConfig);', 'new CircuitBreaker', 'constructor(config: BreakerConfig);'],
];

/**
 * The declarations the lean runtime does not carry besides (the two calls
 * that make a control: NOT_IN_LEAN), marked the same way in
 * browser-lean/lib/browser.d.ts, with the advice to build the page with the
 * default runtime.
 */
const NOT_IN_LEAN_TYPES = [
  [
    'static fromCompiled(form: CompiledForm): Dependency;',
    'Dependency.fromCompiled',
    'static fromCompiled(form: CompiledForm): NotCarried;',
  ],
  ['constructor(capacity: number);', 'new RetrySlots', 'constructor(capacity: number);'],
];

const CONFIG_ADVICE =
  'Compile the configuration when the page is built (retryplan/rollup, compilePolicy or\n   * compileDependency of retryplan/tools, `retryplan compile`) and load it with Policy.fromCompiled or\n   * Dependency.fromCompiled, or import it from retryplan/tools.';
const LEAN_ADVICE =
  "The lean runtime (retryplan/rollup's `runtime: 'lean'`) leaves the shared controls out: build\n   * the page with `retryplan()` to use a Dependency or RetrySlots.";

/** The type of what a call the runtime does not carry returns (it throws), declared once in its browser.d.ts. */
const NOT_CARRIED_DECLARATION = `
declare const notCarried: unique symbol;
/**
 * What a call this runtime does not carry is typed to return (it throws a RetryplanError with code
 * "unsupported"): no Policy or Dependency, so reading from it, or passing it on as a \`policy\` or
 * \`dependency\`, is a type error.
 */
export interface NotCarried {
  readonly [notCarried]: true;
}
`;

/** browser/lib/browser.d.ts from lib/index.d.ts (see NOT_CARRIED_TYPES; and NOT_IN_LEAN_TYPES without the controls). */
function browserTypes(index, controls) {
  let text = index.replace(/from '\.\/generated\//g, "from '../../lib/generated/");
  const marked = [
    ...NOT_CARRIED_TYPES.map((entry) => [...entry, 'browser runtime', CONFIG_ADVICE]),
    ...(controls ? [] : NOT_IN_LEAN_TYPES.map((entry) => [...entry, 'lean browser runtime', LEAN_ADVICE])),
  ];
  for (const [declaration, what, replacement, runtime, advice] of marked) {
    const at = text.indexOf(`  ${declaration}\n`);
    if (at < 0 || text.indexOf(`  ${declaration}\n`, at + 1) >= 0)
      throw new Error(`browser-entry.mjs: lib/index.d.ts declares \`${declaration}\` ${at < 0 ? 'nowhere' : 'twice'}`);
    const note = `  /**\n   * @deprecated \`${what}\` is not in the ${runtime}: it throws a RetryplanError with code\n   * "unsupported". ${advice}\n   */\n`;
    text = `${text.slice(0, at)}${note}  ${replacement}\n${text.slice(at + declaration.length + 3)}`;
  }
  text += NOT_CARRIED_DECLARATION;
  // The server side of propagation (lib/propagation.js, lib/server.js) is not exported at all: a page serves no
  // request. Its declarations go, and IncomingContext is `never` (no driver of a page starts from one).
  const from = text.indexOf('/**\n * What the request being served says about its caller');
  const to = text.indexOf('export function currentIncoming(): IncomingContext | undefined;\n');
  if (from < 0 || to < from)
    throw new Error('browser-entry.mjs: lib/index.d.ts no longer declares propagation as expected');
  const never = `/**\n * @deprecated The browser runtime serves no request: it carries no IncomingContext, \`propagation\` or\n * \`currentIncoming\` (retryplan in Node, or retryplan/tools, does).\n */\nexport type IncomingContext = never;\n`;
  text = `${text.slice(0, from)}${never}${text.slice(to + 'export function currentIncoming(): IncomingContext | undefined;\n'.length)}`;
  // OpenTelemetry (lib/otel.js, LEFT_OUT) is not exported either: its two functions and the API they take go.
  const otelFrom = text.indexOf(
    '/**\n * Node and tools entries: reports every `run` and `retryFetch` through\n * OpenTelemetry',
  );
  const otelEnd = '\n  SpanStatusCode: unknown;\n}\n';
  const otelTo = text.indexOf(otelEnd, otelFrom);
  if (
    otelFrom < 0 ||
    otelTo < otelFrom ||
    !text.slice(otelFrom, otelTo).includes('export interface OpenTelemetryApi {')
  )
    throw new Error('browser-entry.mjs: lib/index.d.ts no longer declares OpenTelemetry as expected');
  text = `${text.slice(0, otelFrom)}${text.slice(otelTo + otelEnd.length).replace(/^\n/, '')}`;
  const of = controls
    ? 'the types of `retryplan` under the `browser`\n// condition (the browser runtime; TypeScript reads it with "customConditions": ["browser"])'
    : 'the types of `retryplan/lean`\n// (the lean browser runtime: no shared controls)';
  return `// Made by browser-entry.mjs from lib/index.d.ts: ${of}. Do not edit.\n${text}`;
}

/** The line before the stubs in the glue. */
const STUBS = '// Not in the browser runtime (browser-entry.mjs): each throws `unsupported` naming what to do instead.';

/** The names a wasm-bindgen glue module exports. */
const exportsOf = (glue) =>
  new Set(
    [...readFileSync(glue, 'utf8').matchAll(/^export (?:function|const|class) ([\w$]+)/gm)].map(([, name]) => name),
  );

/** The runtimes this module makes the JS of: their folder, and whether the shared controls are in their wasm. */
const RUNTIMES = [
  ['browser', true],
  ['browser-lean', false],
];

function build(name, controls) {
  const here = new URL('./', import.meta.url);
  const lib = new URL('lib/', here);
  const out = new URL(`${name}/lib/`, here);
  rmSync(out, { recursive: true, force: true });
  mkdirSync(new URL('generated/', out), { recursive: true });
  const runtime = new Set(readdirSync(new URL('runtime/', lib)));
  const generated = readdirSync(new URL('generated/', lib))
    .filter((file) => file.endsWith('.js'))
    .map((name) => `generated/${name}`);
  for (const name of readdirSync(lib).filter((file) => file.endsWith('.js') && !LEFT_OUT.has(file))) {
    if (SHARED.has(name)) continue;
    const from = runtime.has(name) ? new URL(`runtime/${name}`, lib) : new URL(name, lib);
    writeFileSync(new URL(name, out), readFileSync(from));
  }
  for (const path of [...SHARED, ...generated]) {
    const up = '../'.repeat(path.split('/').length + 1);
    writeFileSync(
      new URL(path, out),
      `// Shared with the other entries: one module for all.\nexport * from '${up}lib/${path}';\n`,
    );
  }

  writeFileSync(new URL('browser.d.ts', out), browserTypes(readFileSync(new URL('index.d.ts', lib), 'utf8'), controls));

  const glue = new URL(`${name}/wasm/retryplan_js.js`, here);
  // The glue as wasm-bindgen wrote it (a second run replaces the stubs of the first).
  const written = readFileSync(glue, 'utf8');
  const marker = written.indexOf(`\n${STUBS}`);
  if (marker >= 0) writeFileSync(glue, written.slice(0, marker));
  const carried = exportsOf(glue);
  const missing = [...exportsOf(new URL('wasm/retryplan_js.js', here))].filter(
    (name) => !carried.has(name) && !ONLY_LEFT_OUT.has(name),
  );
  const lean = controls ? {} : NOT_IN_LEAN;
  const unlisted = missing.filter(
    (name) => NOT_CARRIED[name] === undefined && NOT_SERVED[name] === undefined && lean[name] === undefined,
  );
  if (unlisted.length > 0)
    throw new Error(
      `browser-entry.mjs: ${name}'s wasm lacks ${unlisted.join(', ')}: name what calls each in NOT_CARRIED, NOT_SERVED or NOT_IN_LEAN`,
    );
  const stub = (name, what, elsewhere) =>
    `export function ${name}() {\n  throw notCarried('${what}'${elsewhere ? `, ${elsewhere}` : ''});\n}\n`;
  const stubs = missing.map((name) =>
    NOT_CARRIED[name] !== undefined
      ? stub(name, NOT_CARRIED[name])
      : NOT_SERVED[name] !== undefined
        ? stub(name, NOT_SERVED[name], 'SERVED_ELSEWHERE')
        : stub(name, lean[name], 'CONTROLS_ELSEWHERE'),
  );
  const imported = controls ? 'SERVED_ELSEWHERE, notCarried' : 'CONTROLS_ELSEWHERE, SERVED_ELSEWHERE, notCarried';
  appendFileSync(glue, `\n${STUBS}\nimport { ${imported} } from '../lib/error.js';\n${stubs.join('')}`);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) for (const [name, controls] of RUNTIMES) build(name, controls);
