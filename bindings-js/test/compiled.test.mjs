// Compiled policies and dependencies: compilePolicy / compileDependency of
// the tools entry (after the core's full validation: the errors of fromConfig
// and fromJson), Policy.fromCompiled / Dependency.fromCompiled of both entries
// (no configuration reader), and the refusals with the core's codes. That a
// compiled policy decides as its JSON does is vectors.test.mjs's compiled pass.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as lean from 'retryplan';
import * as tools from 'retryplan/tools';
import { COMPILED_FORM } from '../lib/generated/wire.js';
import { throwsCode } from './assertions.mjs';

const CONFIG = { maxAttempts: 4, totalTimeoutMs: 2000, idempotency: 'keyed', hedging: undefined };
const JSON_TEXT = '{"max_attempts": 4, "total_timeout_ms": 2000, "idempotency": "keyed"}';

/** The error `call` throws, as the fields a caller reads. */
function errorOf(call) {
  try {
    call();
  } catch (error) {
    assert.ok(error instanceof lean.RetryplanError, String(error));
    const { code, blame, config, field, message, violations } = error;
    return { code, blame, config, field, message, violations };
  }
  assert.fail('expected a RetryplanError');
}

/** `form` with its byte `at` replaced by `byte`. */
const withByte = (form, at, byte) => {
  const copy = form.slice();
  copy[at] = byte;
  return copy;
};

test('compilePolicy: an object, JSON text or a Policy, the same bytes; read back equal in both entries', () => {
  const form = tools.compilePolicy(CONFIG);
  assert.ok(form instanceof Uint8Array);
  assert.equal(String.fromCharCode(form[0], form[1], form[2]), 'rpp', 'magic `rp`, kind `p`');
  assert.equal(form[3], COMPILED_FORM.VERSION);
  assert.deepEqual(tools.compilePolicy(JSON_TEXT), form);
  const policy = tools.Policy.fromJson(JSON_TEXT);
  assert.deepEqual(tools.compilePolicy(policy), form);
  // Read back by the tools entry: the same normalised configuration, compiling to the same bytes.
  const back = tools.Policy.fromCompiled(form);
  assert.equal(back.toJson(), policy.toJson());
  assert.deepEqual(tools.compilePolicy(back), form);
  // The default entry: what it can see of the policy.
  const page = lean.Policy.fromCompiled(form);
  assert.deepEqual([page.maxAttempts, page.totalTimeoutMs, page.sendsIdempotencyKey], [4, 2000, true]);
  for (const each of [policy, back, page]) each.free();
});

test('compilePolicy of every profile reads back as the profile', () => {
  for (const name of lean.profileNames()) {
    const profile = tools.Policy.profile(name);
    const back = tools.Policy.fromCompiled(tools.compilePolicy(profile));
    assert.equal(back.toJson(), profile.toJson(), name);
    profile.free();
    back.free();
  }
});

test('fromCompiled takes a Uint8Array, a Node Buffer or an ArrayBuffer, and nothing else', () => {
  const form = tools.compilePolicy(CONFIG);
  for (const bytes of [form, Buffer.from(form), form.slice().buffer])
    assert.equal(lean.Policy.fromCompiled(bytes).maxAttempts, 4);
  for (const value of [tools.compiledToBase64(form), Array.from(form), undefined, null, 7, new Uint16Array(form)]) {
    const error = errorOf(() => lean.Policy.fromCompiled(value));
    assert.deepEqual([error.code, error.field], ['invalid_argument', 'form'], String(value));
    assert.match(
      error.message,
      /^invalid argument `form`: must be a compiled form \(a Uint8Array or an ArrayBuffer\), got /,
    );
  }
});

test("a form longer than the core reads is the core's to refuse (compiled_form_damaged at MAX_FORM_LEN), as in every language, without being copied whole", () => {
  assert.equal(COMPILED_FORM.MAX_LEN, 2 ** 20);
  const damaged = {
    code: 'compiled_form_damaged',
    blame: 'configuration',
    config: 'dependency',
    field: undefined,
    violations: undefined,
    message: `the compiled dependency is damaged (byte ${2 ** 20} does not read as its form says): compile the dependency again`,
  };
  const form = tools.compileDependency({ retrySlots: 4 });
  for (const length of [2 ** 20 + 1, 2 ** 22]) {
    const long = new Uint8Array(length);
    long.set(form);
    assert.deepEqual(
      errorOf(() => lean.Dependency.fromCompiled(long)),
      damaged,
      String(length),
    );
    assert.deepEqual(
      errorOf(() => tools.Dependency.fromCompiled(long.buffer)),
      damaged,
      String(length),
    );
  }
  // At the limit, the form's own checks decide: its checksum does not cover the zeros after it.
  const atLimit = new Uint8Array(2 ** 20);
  atLimit.set(form);
  assert.equal(errorOf(() => lean.Dependency.fromCompiled(atLimit)).code, 'compiled_form_damaged');
  assert.match(errorOf(() => lean.Dependency.fromCompiled(atLimit)).message, /checksum/);
});

test('compilePolicy refuses what fromConfig and fromJson refuse, with the same error', () => {
  for (const config of [{ maxAttempts: 0 }, { maxAttemps: 3 }, { backoff: { baseMs: 'x' } }, 5]) {
    assert.deepEqual(
      errorOf(() => tools.compilePolicy(config)),
      errorOf(() => lean.Policy.fromConfig(config)),
      JSON.stringify(config),
    );
  }
  for (const text of ['{"max_attempts": 0}', '{"max_attempts": 1, "max_attempts": 2}', '{', '']) {
    assert.deepEqual(
      errorOf(() => tools.compilePolicy(text)),
      errorOf(() => tools.Policy.fromJson(text)),
      text,
    );
  }
  const freed = tools.Policy.profile('read');
  freed.free();
  assert.equal(errorOf(() => tools.compilePolicy(freed)).code, 'invalid_argument');
});

test('compileDependency: an object or JSON text; refused as fromConfig and fromJson refuse', () => {
  const config = { budget: { kind: 'token_bucket', maxTokens: 10, tokenRatio: 0.1 }, retrySlots: 4 };
  const form = tools.compileDependency(config);
  assert.equal(String.fromCharCode(form[0], form[1], form[2]), 'rpd', 'magic `rp`, kind `d`');
  assert.deepEqual(
    tools.compileDependency(
      '{"budget": {"kind": "token_bucket", "max_tokens": 10, "token_ratio": 0.1}, "retry_slots": 4}',
    ),
    form,
  );
  const fromForm = tools.Dependency.fromCompiled(form);
  const fromConfig = tools.Dependency.fromConfig(config);
  assert.deepEqual(fromForm.snapshot(0), fromConfig.snapshot(0));
  const page = lean.Dependency.fromCompiled(form);
  assert.ok(page.budget !== undefined && page.retrySlots !== undefined && page.breaker === undefined);
  for (const bad of [{ budget: { kind: 'token_bucket', maxTokens: 0, tokenRatio: 0.1 } }, { budgt: {} }, []]) {
    assert.deepEqual(
      errorOf(() => tools.compileDependency(bad)),
      errorOf(() => lean.Dependency.fromConfig(bad)),
      JSON.stringify(bad),
    );
  }
  for (const text of [
    '{"budget": {"kind": "token_bucket", "max_tokens": 0, "token_ratio": 0.1}}',
    '{"retry_slots": 1, "retry_slots": 1}',
    'nope',
  ]) {
    assert.deepEqual(
      errorOf(() => tools.compileDependency(text)),
      errorOf(() => tools.Dependency.fromJson(text)),
      text,
    );
  }
});

test("a refused form: the core's code, blame and message, config naming the kind expected, in both entries", () => {
  const form = tools.compilePolicy(CONFIG);
  const dependency = tools.compileDependency({ retrySlots: 2 });
  const cases = [
    [
      () => lean.Policy.fromCompiled(new TextEncoder().encode('{"max_attempts": 3}')),
      'not_a_compiled_form',
      "not a compiled policy: 19 bytes that do not start with a compiled form's header (magic `rp`); a form written as base64 text must be decoded to bytes first",
    ],
    [
      () => lean.Dependency.fromCompiled(form.subarray(0, 7)),
      'not_a_compiled_form',
      "not a compiled dependency: 7 bytes that do not start with a compiled form's header (magic `rp`); a form written as base64 text must be decoded to bytes first",
    ],
    [
      () => lean.Policy.fromCompiled(withByte(form, 3, 99)),
      'compiled_form_version',
      `the compiled policy is form version 99 and this retryplan reads version ${COMPILED_FORM.VERSION}: compile the policy again with this version`,
    ],
    [
      () => lean.Policy.fromCompiled(form.subarray(0, form.length - 1)),
      'compiled_form_damaged',
      'the compiled policy is damaged (its checksum does not match its bytes): compile the policy again',
    ],
    [
      () => lean.Policy.fromCompiled(withByte(form, 10, form[10] ^ 1)),
      'compiled_form_damaged',
      'the compiled policy is damaged (its checksum does not match its bytes): compile the policy again',
    ],
    [
      () => lean.Policy.fromCompiled(dependency),
      'compiled_form_kind',
      'expected a compiled policy, got a compiled dependency',
    ],
    [
      () => lean.Dependency.fromCompiled(form),
      'compiled_form_kind',
      'expected a compiled dependency, got a compiled policy',
    ],
    [
      () => tools.Policy.fromCompiled(dependency),
      'compiled_form_kind',
      'expected a compiled policy, got a compiled dependency',
    ],
  ];
  for (const [call, code, message] of cases) {
    const error = errorOf(call);
    // `config` is the kind expected: the words after "compiled" in every message but the kind's, where it is the first.
    const expected = message.match(/compiled (policy|dependency)/)[1];
    assert.deepEqual(
      [error.code, error.blame, error.config, error.message],
      [code, 'configuration', expected, message],
    );
  }
  // A value that does not read, under a checksum recomputed over it, names its offset (a form not
  // written by the compiler): max_attempts 0, out of its range, at byte 8.
  assert.equal(
    errorOf(() => lean.Policy.fromCompiled(resealed(withByte(form, 8, 0)))).message,
    'the compiled policy is damaged (byte 8 does not read as its form says): compile the policy again',
  );
  throwsCode(() => lean.Policy.fromCompiled(resealed(withByte(form, 2, 0x78))), 'compiled_form_kind');
  assert.equal(
    errorOf(() => lean.Policy.fromCompiled(resealed(withByte(form, 2, 0x78)))).message,
    'expected a compiled policy, got a compiled unknown',
  );
});

/** CRC-32 (IEEE), as zlib's: the form's checksum (form.md). */
function crc32(bytes) {
  let crc = ~0;
  for (const byte of bytes) {
    crc ^= byte;
    for (let bit = 0; bit < 8; bit += 1) crc = (crc >>> 1) ^ (0xedb88320 & -(crc & 1));
  }
  return ~crc >>> 0;
}

/** `form` with its checksum computed again over its bytes (a forged form, to reach the reader's own checks). */
function resealed(form) {
  const copy = form.slice();
  const sum = crc32([...copy.subarray(0, 4), ...copy.subarray(8)]);
  new DataView(copy.buffer).setUint32(4, sum, true);
  return copy;
}

test("the checksum this test forges with is the form's (an intact form resealed is the same bytes)", () => {
  const form = tools.compilePolicy(CONFIG);
  assert.deepEqual(resealed(form), form);
});

test('base64: the line `retryplan compile` prints, read back; text that is not base64 is refused', () => {
  const form = tools.compilePolicy({});
  const line = tools.compiledToBase64(form);
  assert.match(line, /^[A-Za-z0-9+/]+={0,2}$/);
  assert.equal(line, Buffer.from(form).toString('base64'));
  assert.deepEqual(tools.compiledFromBase64(`${line}\n`), form);
  const error = errorOf(() => tools.compiledFromBase64('not base64!'));
  assert.deepEqual([error.code, error.field], ['invalid_argument', 'line']);
  assert.equal(errorOf(() => tools.compiledFromBase64(3)).code, 'invalid_argument');
});

test("the CompiledFormErrorCode type lists the core's codes: generated (core/mirrors, generated/names.d.ts), re-exported by index.d.ts", () => {
  const names = readFileSync(new URL('../lib/generated/names.d.ts', import.meta.url), 'utf8');
  const declared = names
    .match(/export type CompiledFormErrorCode =([^;]+);/)[1]
    .match(/\| '[a-z_]+'/g)
    .map((code) => code.slice(3, -1));
  assert.deepEqual(declared, [...new Set(COMPILED_FORM.MESSAGES.map(([code]) => code))]);
  const index = readFileSync(new URL('../lib/index.d.ts', import.meta.url), 'utf8');
  assert.doesNotMatch(index, /type CompiledFormErrorCode =/, 'not written twice');
  assert.match(index, /^export type \* from '\.\/generated\/names\.js';$/m, 'every generated name re-exported');
});
