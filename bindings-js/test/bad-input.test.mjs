// What bad input gets, one row per kind of bad input: a RetryplanError with
// the core's code and the argument or field it names, the same code and field
// as bindings-python/tests/test_bad_input.py and the Kotlin BadInputTest give
// for the same row (an argument is named in its JS spelling, `nowMs` where
// Python says `now_ms`; a configuration field by its snake_case path in every
// language). The README's "What bad input gets" table is these rows: a test
// below reads it and compares. test/inputs.test.mjs covers every argument of
// the API; this is the matrix the three bindings share.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as lean from 'retryplan';
import { CircuitBreaker, RetrySlots, Operation, Policy, RetryBudget, awsErrorCodeFromResponse } from 'retryplan/tools';
import { throwsCode } from './assertions.mjs';

const NONE = 'none';
const BREAKER = { trip: { kind: 'consecutive', failures: 1 }, openMs: 1000, halfOpenProbes: 1 };
const HUGE = 'x'.repeat(10_000_000);
const LARGE = 'x'.repeat(1_000_000); // under the 1 MiB bound of a string crossing into the wasm
const MIB = 'x'.repeat(2 ** 20); // exactly the 1 MiB bound of one string
/** 4,000 strings of 1 MiB: 4 GiB of text if it were all copied into the wasm (one JS string, shared). */
const MANY_MIB = () => ({ retryOn: { errorCodes: Array(4000).fill(MIB) } });

function op() {
  const operation = new Operation(Policy.fromConfig({}), 0, { seed: 1 });
  operation.poll(0);
  return operation;
}

function ended() {
  const operation = op();
  operation.cancel(1);
  return operation;
}

function clockBackwards() {
  const operation = op();
  operation.onOutcome(500, 1, { type: 'http_status', status: 503 });
  assert.deepEqual(operation.poll(300), operation.poll(500), 'the earlier reading counts as no time: 500 ms');
}

function clockFarAhead() {
  const breaker = new CircuitBreaker(BREAKER);
  breaker.onFailure(1_700_000_000_000, breaker.tryAcquire(100));
  assert.equal(breaker.tryAcquire(200), undefined, 'open for the 1000 ms it had left');
  assert.notEqual(breaker.tryAcquire(1200), undefined, 'not for 55 years');
  const budget = new RetryBudget({ kind: 'ratio', retryRatio: 0.5, minRetriesPerSecond: 0, windowMs: 1000 });
  budget.onRequest(2 ** 53 - 1);
  budget.onRequest(0);
  assert.equal(budget.snapshot(0).requests, 2, 'the clock restarted at 0 with both counts');
  assert.equal(budget.snapshot(1000).requests, 0, 'and they leave the window 1000 ms later, not in 285,000 years');
}

function reportedTwice() {
  const breaker = new CircuitBreaker(BREAKER);
  const permit = breaker.tryAcquire(0);
  breaker.onSuccess(1, permit);
  breaker.onSuccess(2, permit);
}

function foreignSlot() {
  const [mine, other] = [new RetrySlots(1), new RetrySlots(1)];
  other.release(mine.tryAcquire());
}

function freed(make) {
  const object = make();
  object.free();
  return object;
}

/** [input, error, code, field, call]: a README row and a call that gives it. */
const ROWS = [
  ['NaN clock reading', 'RetryplanError', 'invalid_argument', 'nowMs', () => op().poll(NaN)],
  ['+Infinity clock reading', 'RetryplanError', 'invalid_argument', 'nowMs', () => op().poll(Infinity)],
  ['-Infinity clock reading', 'RetryplanError', 'invalid_argument', 'nowMs', () => op().poll(-Infinity)],
  ['negative clock reading', 'RetryplanError', 'invalid_argument', 'nowMs', () => op().poll(-1)],
  ['clock reading beyond 2^53 - 1 ms', 'RetryplanError', 'invalid_argument', 'nowMs', () => op().poll(2 ** 53)],
  ['clock reading beyond 2^64', 'RetryplanError', 'invalid_argument', 'nowMs', () => op().poll(2 ** 64)],
  ['wrong type for an argument', 'RetryplanError', 'invalid_argument', 'nowMs', () => op().poll('1')],
  ['null for a required argument', 'RetryplanError', 'invalid_argument', 'nowMs', () => op().poll(null)],
  ['undefined for a required argument', 'RetryplanError', 'invalid_argument', 'nowMs', () => op().poll(undefined)],
  ['negative count', 'RetryplanError', 'invalid_argument', 'capacity', () => new RetrySlots(-1)],
  ['count beyond 32 bits', 'RetryplanError', 'invalid_argument', 'capacity', () => new RetrySlots(2 ** 32)],
  [
    'NaN in a configuration',
    'RetryplanError',
    'invalid_config',
    'attempt_timeout.fraction_of_remaining',
    () => Policy.fromConfig({ attemptTimeout: { fractionOfRemaining: NaN } }),
  ],
  [
    'Infinity in a configuration',
    'RetryplanError',
    'invalid_config',
    'attempt_timeout.fraction_of_remaining',
    () => Policy.fromConfig({ attemptTimeout: { fractionOfRemaining: Infinity } }),
  ],
  [
    'negative number in a configuration',
    'RetryplanError',
    'invalid_config',
    'backoff.base_ms',
    () => Policy.fromConfig({ backoff: { baseMs: -5 } }),
  ],
  [
    'time beyond 2^53 - 1 ms in a configuration',
    'RetryplanError',
    'config_violations',
    'total_timeout_ms',
    () => Policy.fromConfig({ totalTimeoutMs: 2 ** 53 }),
  ],
  [
    'number beyond 2^64 in a configuration',
    'RetryplanError',
    'invalid_config',
    'total_timeout_ms',
    () => Policy.fromJson('{"total_timeout_ms": 18446744073709551616}'),
  ],
  [
    'wrong type in a configuration',
    'RetryplanError',
    'invalid_config',
    'max_attempts',
    () => Policy.fromJson('{"max_attempts": "3"}'),
  ],
  [
    'wrong type in a configuration object',
    'RetryplanError',
    'invalid_config',
    'max_attempts',
    () => Policy.fromConfig({ maxAttempts: '3' }),
  ],
  [
    'null in a configuration',
    'RetryplanError',
    'invalid_config',
    'total_timeout_ms',
    () => Policy.fromJson('{"total_timeout_ms": null}'),
  ],
  [
    'null in a configuration object',
    'RetryplanError',
    'invalid_config',
    'total_timeout_ms',
    () => Policy.fromConfig({ totalTimeoutMs: null }),
  ],
  ['unknown field', 'RetryplanError', 'invalid_config', 'max_attemps', () => Policy.fromJson('{"max_attemps": 3}')],
  [
    'unknown field in a configuration object',
    'RetryplanError',
    'invalid_config',
    'max_attemps',
    () => Policy.fromConfig({ maxAttemps: 3 }),
  ],
  [
    'duplicate field',
    'RetryplanError',
    'invalid_config',
    'max_attempts',
    () => Policy.fromJson('{"max_attempts": 3, "max_attempts": 4}'),
  ],
  [
    'duplicate field in a configuration object (two spellings)',
    'RetryplanError',
    'invalid_config',
    'max_attempts',
    () => Policy.fromConfig({ maxAttempts: 3, max_attempts: 4 }),
  ],
  [
    'lone surrogate in an argument',
    'RetryplanError',
    'invalid_argument',
    'idempotencyKey',
    () => new Operation(Policy.fromConfig({}), 0, { seed: 1, idempotencyKey: 'key\ud800' }),
  ],
  [
    "a key the core refuses (a space), under the option's JS name as every other option",
    'RetryplanError',
    'invalid_argument',
    'idempotencyKey',
    () => new Operation(Policy.fromConfig({}), 0, { seed: 1, idempotencyKey: 'has space' }),
  ],
  [
    'lone surrogate in a configuration',
    'RetryplanError',
    'invalid_config',
    'idempotency',
    () => Policy.fromConfig({ idempotency: '\ud800' }),
  ],
  [
    'lone surrogate in JSON text',
    'RetryplanError',
    'invalid_argument',
    'json',
    () => Policy.fromJson('{"idempotency": "\ud800"}'),
  ],
  [
    'huge string in a configuration (1 MB)',
    'RetryplanError',
    'invalid_config',
    'idempotency',
    () => Policy.fromJson(`{"idempotency": "${LARGE}"}`),
  ],
  [
    'huge JSON text (10 MB)',
    'RetryplanError',
    'invalid_argument',
    'json',
    () => Policy.fromJson(`{"idempotency": "${HUGE}"}`),
  ],
  [
    'huge string in a configuration object (10 MB)',
    'RetryplanError',
    'invalid_config',
    'idempotency',
    () => Policy.fromConfig({ idempotency: HUGE }),
  ],
  [
    'more than 4 MiB of text in a configuration object (4,000 strings of 1 MiB)',
    'RetryplanError',
    'invalid_config',
    'retry_on.error_codes[3]',
    () => Policy.fromConfig(MANY_MIB()),
  ],
  ['clock backwards (an operation)', NONE, NONE, NONE, clockBackwards],
  ['clock far ahead (a breaker, a budget)', NONE, NONE, NONE, clockFarAhead],
  ['call after the end', 'RetryplanError', 'operation_ended', NONE, () => ended().poll(2)],
  ['grant used twice', 'RetryplanError', 'invalid_argument', 'permit', reportedTwice],
  ['grant of another control', 'RetryplanError', 'invalid_argument', 'slot', foreignSlot],
  ['freed object', 'RetryplanError', 'invalid_argument', 'operation', () => freed(op).poll(0)],
  [
    'freed object as an argument',
    'RetryplanError',
    'invalid_argument',
    'policy',
    () =>
      new Operation(
        freed(() => Policy.fromConfig({})),
        0,
      ),
  ],
  [
    'object of the other entry as an argument',
    'RetryplanError',
    'invalid_argument',
    'policy',
    () => new Operation(lean.Policy.fromConfig({}), 0),
  ],
];

for (const [input, name, code, field, call] of ROWS) {
  test(`what bad input gets: ${input}`, () => {
    if (name === NONE) return call();
    const error = throwsCode(call, code);
    assert.equal(error.name, name);
    const fields = error.violations ? error.violations.map((violation) => violation.field).join(',') : error.field;
    assert.equal(fields ?? NONE, field, error.message);
    assert.ok(error.message.length < 1000, 'a bad value is excerpted, never copied whole');
  });
}

test('a configuration of 4,000 strings of 1 MiB is refused before its fifth string is read, and the module keeps working', () => {
  // Every string the reader looks at is checked for lone surrogates first
  // (isWellFormed): count those checks, an operation count, not a time.
  const original = String.prototype.isWellFormed;
  let checked = 0;
  String.prototype.isWellFormed = function isWellFormed() {
    checked += 1;
    return original ? original.call(this) : true;
  };
  let error;
  try {
    for (let call = 0; call < 3; call++) {
      error = throwsCode(() => Policy.fromConfig(MANY_MIB()), 'invalid_config');
    }
  } finally {
    String.prototype.isWellFormed = original;
  }
  assert.equal(error.field, 'retry_on.error_codes[3]');
  assert.match(error.message, /holds more than 4194304 characters of text in all$/);
  assert.ok(
    checked <= 3 * 8,
    `${checked} strings read in three calls: the reading stops at the bound, not after 4,000`,
  );
  // Calls that need 1 MiB of wasm memory still work: nothing was trapped or leaked.
  for (let call = 0; call < 8; call++) {
    const body = `{"code": "SlowDown"${' '.repeat(2 ** 20 - 30)}}`;
    assert.equal(awsErrorCodeFromResponse(undefined, body), 'SlowDown');
    assert.ok(Policy.fromConfig({}).maxAttempts >= 1);
    throwsCode(() => Policy.fromConfig({ idempotency: MIB }), 'invalid_config');
  }
});

test('a huge value is quoted as an excerpt', () => {
  assert.throws(
    () => Policy.fromJson(`{"idempotency": "${LARGE}"}`),
    (error) => error.message.includes('x'.repeat(64)) && !error.message.includes('x'.repeat(65)),
  );
});

/** The rows of the README's "What bad input gets" table. */
function readmeRows() {
  const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
  const section = readme.split('\n## What bad input gets\n')[1].split('\n## ')[0];
  const rows = [];
  for (const line of section.split('\n')) {
    const cells = line
      .trim()
      .replace(/^\||\|$/g, '')
      .split('|')
      .map((cell) => cell.trim().replace(/^`|`$/g, ''));
    if (!line.startsWith('| ') || cells[0] === 'input' || cells[0] === '' || /^[-: ]+$/.test(cells[0])) continue;
    rows.push(cells);
  }
  return rows;
}

test("the README's table is these rows", () => {
  assert.deepEqual(
    readmeRows(),
    ROWS.map((row) => row.slice(0, 4)),
  );
});

test('every row label is unique', () => {
  assert.equal(new Set(ROWS.map((row) => row[0])).size, ROWS.length);
});

test("a configuration object's error names its keys as written: a camelCase typo gets the camelCase suggestion", () => {
  const refused = (make) => {
    try {
      make();
    } catch (error) {
      return [error.code, error.field, error.message];
    }
    assert.fail('not refused');
  };
  const [code, field, message] = refused(() => lean.Policy.fromConfig({ maxAttempt: 3 }));
  assert.deepEqual([code, field], ['invalid_config', 'max_attempt']);
  assert.match(
    message,
    /^invalid policy configuration at `maxAttempt`: unknown field `maxAttempt` \(did you mean `maxAttempts`\?\), expected one of `maxAttempts`, `totalTimeoutMs`, `attemptTimeout`, /,
  );
  // Nested, with a capital run that reads back as written (baseMS is read as base_m_s).
  assert.deepEqual(
    refused(() => lean.Policy.fromConfig({ backoff: { kind: 'constant', baseMS: 3 } })),
    [
      'invalid_config',
      'backoff.base_m_s',
      'invalid policy configuration at `backoff.baseMS`: unknown field `baseMS` (did you mean `baseMs`?), expected one of `kind`, `baseMs`, `multiplier`, `capMs`, `throttlingBaseMs`, `immediateFirstRetry`',
    ],
  );
  // A missing field is named as the keys around it are spelt (camelCase when none tells).
  const missing = (config) => refused(() => lean.Policy.fromConfig(config)).slice(1);
  assert.deepEqual(missing({ hedging: { delayMs: 10 } }), [
    'hedging.max_hedged_attempts',
    'invalid policy configuration at `hedging.maxHedgedAttempts`: missing field `maxHedgedAttempts`',
  ]);
  assert.deepEqual(missing({ maxAttempts: 3, hedging: {} }), [
    'hedging.delay_ms',
    'invalid policy configuration at `hedging.delayMs`: missing field `delayMs`',
  ]);
  assert.deepEqual(missing({ max_attempts: 3, hedging: {} }), [
    'hedging.delay_ms',
    'invalid policy configuration at `hedging.delay_ms`: missing field `delay_ms`',
  ]);
  // A key written in snake_case keeps snake_case names; no suggestion when nothing is close.
  assert.match(
    refused(() => lean.Policy.fromConfig({ max_attempt: 3 }))[2],
    /unknown field `max_attempt` \(did you mean `max_attempts`\?\), expected one of `max_attempts`, `total_timeout_ms`/,
  );
  assert.match(
    refused(() => lean.Policy.fromConfig({ zzz: 1 }))[2],
    /at `zzz`: unknown field `zzz`, expected one of `maxAttempts`, /,
  );
  // Through an array, and for a value (not a key) the path only.
  assert.deepEqual(refused(() => lean.Policy.fromConfig({ retryOn: { errorCodes: [1] } })).slice(0, 2), [
    'invalid_config',
    'retry_on.error_codes[0]',
  ]);
  assert.match(
    refused(() => lean.Policy.fromConfig({ retryOn: { errorCodes: [1] } }))[2],
    /^invalid policy configuration at `retryOn\.errorCodes\[0\]`: expected one of `aws_transient`, `aws_throttling`/,
  );
  // Every reader of a configuration object.
  assert.match(
    refused(() => lean.Dependency.fromConfig({ retrySlot: 3 }))[2],
    /unknown field `retrySlot` \(did you mean `retrySlots`\?\)/,
  );
  assert.match(
    refused(() => new RetryBudget({ kind: 'token_bucket', maxToken: 3 }))[2],
    /unknown field `maxToken` \(did you mean `maxTokens`\?\)/,
  );
  assert.match(
    refused(() => new CircuitBreaker({ trip: { kind: 'consecutive', failure: 3 }, openMs: 10, halfOpenProbes: 1 }))[2],
    /at `trip\.failure`: unknown field `failure` \(did you mean `failures`\?\)/,
  );
  // What is not plain data (the binding's reader refuses it before the core reads anything) is named alike.
  const notPlain = [
    [{ totalTimeoutMs: 10n }, 'total_timeout_ms', '`totalTimeoutMs`', 'found a bigint'],
    [{ totalTimeoutMs: new Date(0) }, 'total_timeout_ms', '`totalTimeoutMs`', 'found an object that is not plain'],
    [{ maxAttempts: () => 3 }, 'max_attempts', '`maxAttempts`', 'found a function'],
    [{ maxAttempts: Symbol('3') }, 'max_attempts', '`maxAttempts`', 'found a symbol'],
    [{ backoff: { baseMs: 10n } }, 'backoff.base_ms', '`backoff.baseMs`', 'found a bigint'],
    [{ retryOn: { errorCodes: ['x', 1n] } }, 'retry_on.error_codes[1]', '`retryOn.errorCodes[1]`', 'found a bigint'],
    [{ max_attempts: 1n }, 'max_attempts', '`max_attempts`', 'found a bigint'],
  ];
  for (const [config, field, written, found] of notPlain) {
    const [code, named, message] = refused(() => lean.Policy.fromConfig(config));
    assert.deepEqual([code, named], ['invalid_config', field]);
    assert.ok(message.startsWith(`invalid policy configuration at ${written}: expected plain data`), message);
    assert.ok(message.includes(found), message);
  }
  assert.match(
    refused(() => lean.Dependency.fromConfig({ budget: { kind: 'ratio', retryRatio: 1n } }))[2],
    /^invalid dependency configuration at `budget\.retryRatio`: expected plain data .*, found a bigint$/,
  );
  assert.match(
    refused(() => new RetryBudget({ kind: 'ratio', retryRatio: 1n }))[2],
    /^invalid budget configuration at `retryRatio`: expected plain data/,
  );
  // A Map's keys as the Map wrote them.
  const inMap = (config) => refused(() => lean.Policy.fromConfig(config))[2];
  assert.match(inMap(new Map([['max_attempts', 'x']])), /^invalid policy configuration at `max_attempts`: /);
  assert.match(inMap(new Map([['maxAttempts', 1n]])), /^invalid policy configuration at `maxAttempts`: /);
  assert.match(
    inMap({ backoff: new Map([['base_ms', 'x']]) }),
    /^invalid policy configuration at `backoff\.base_ms`: /,
  );
  assert.match(
    inMap(new Map([['hedging', new Map([['delay_ms', 10]])]])),
    /^invalid policy configuration at `hedging\.max_hedged_attempts`: missing field `max_hedged_attempts`$/,
  );
  // JSON text keeps the shared snake_case spelling.
  assert.match(
    refused(() => Policy.fromJson('{"max_attempt": 3}'))[2],
    /unknown field `max_attempt` \(did you mean `max_attempts`\?\)/,
  );
});
