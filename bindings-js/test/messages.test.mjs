// Messages are composed outside the wasm (lib/messages.js) from the core's
// table, byte for byte as Rust composes them; the default entry's wasm holds
// no formatting code and the smallest panic path. The messages of every error
// vector are compared in vectors.test.mjs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { BINDING, compose, decimal, quote } from '../lib/messages.js';
import { RULES } from '../lib/rules.js';
import { FORMATTING, readWasm } from './wasm-names.mjs';

const table = JSON.parse(readFileSync(new URL('../../tests/messages/rules.json', import.meta.url), 'utf8'));

/** A message as the fixture writes it: `{bigint}` and `{float}` stand for what JSON cannot hold. */
const fromFixture = (value) => {
  if (Array.isArray(value)) return value.map(fromFixture);
  if (value !== null && typeof value === 'object' && 'bigint' in value) return BigInt(value.bigint);
  if (value !== null && typeof value === 'object' && 'float' in value) return Number(value.float);
  return value;
};

test('lib/rules.js is the core table, rule for rule: every id in its place, the template of each rule JS raises', () => {
  assert.deepEqual(
    RULES.map(([id]) => id),
    table.rules.map(({ id }) => id),
  );
  for (const [at, [id, template]] of RULES.entries())
    if (template !== undefined) assert.equal(template, table.rules[at].template, id);
  // The rules left out (core/mirrors/src/js_rules.rs, NOT_IN_JS) are few: the table is not emptied by mistake.
  assert.ok(RULES.filter((entry) => entry.length === 1).length <= 10);
});

/** Whether lib/rules.js carries the template of every rule `message` (as data) uses, its nested messages' too. */
const carried = ([index, ...values]) =>
  RULES[index].length === 2 &&
  values.every(
    (value) =>
      !Array.isArray(value) ||
      (typeof value[0] === 'number'
        ? carried(value)
        : value.every((item) => typeof item === 'string' || carried(item))),
  );

test('every example composes as Rust composes it (each of a rule JS raises)', () => {
  assert.ok(table.examples.length > table.rules.length);
  const examples = table.examples.filter(({ message }) => carried(fromFixture(message)));
  assert.ok(examples.length > table.rules.length);
  for (const { message, text } of examples) assert.equal(compose(fromFixture(message)), text, JSON.stringify(message));
});

test('the value writers: decimals without an exponent, quoted text escaped', () => {
  assert.equal(decimal(1e-7), '0.0000001');
  assert.equal(decimal(-0), '0');
  assert.equal(decimal(1 / 3), '0.333333333333');
  assert.equal(quote('a"\n\u200b'), '"a\\"\\u{a}\\u{200b}"');
});

/** The texts of the hand-written sources: src/, and lib/ but for lib/messages.js. */
const sources = () => {
  const root = new URL('../', import.meta.url);
  const files = readdirSync(new URL('src/', root)).map((name) => `src/${name}`);
  for (const entry of readdirSync(new URL('lib/', root), { recursive: true }))
    if (entry.endsWith('.js') && entry !== 'messages.js') files.push(`lib/${entry}`);
  return files
    .filter((file) => file.endsWith('.rs') || file.endsWith('.js'))
    .map((file) => readFileSync(new URL(file, root), 'utf8'));
};

test("the binding's refusals and their words (BINDING) match: every key raised has words, every key's words are raised", () => {
  const text = sources().join('\n');
  // Rust: `invalid(name, "key")`, `invalid_with(name, "key", ..)`; JS: `refuse(name, 'key', ..)`.
  const raised = [...text.matchAll(/\b(?:invalid|invalid_with|refuse)\(\s*[^,()]+,\s*["']([a-z_]+)["']/g)].map(
    ([, key]) => key,
  );
  assert.ok(raised.length > 20);
  assert.deepEqual(
    raised.filter((key) => !Object.hasOwn(BINDING, key)),
    [],
  );
  assert.deepEqual(
    Object.keys(BINDING).filter((key) => !text.includes(`"${key}"`) && !text.includes(`'${key}'`)),
    [],
  );
});

// The default entry's wasm as cargo linked it, name section included (build.sh keeps it).
const lean = new URL('../../target/wasm32-unknown-unknown/wasm-release/retryplan_js.lean.wasm', import.meta.url);

test('the default entry links no formatting code (core::fmt), and panics only through its own handler', {
  skip: !existsSync(lean) && 'build.sh has not run',
}, () => {
  const { names } = readWasm(readFileSync(lean));
  assert.ok(names.length > 100, 'the name section is there');
  assert.deepEqual(
    names.filter((name) => FORMATTING.test(name)),
    [],
  );
  // no_std: no std panic machinery (hooks, payloads, the default handler), no unwinding.
  assert.deepEqual(
    names.filter((name) => /std.*panicking|3std9panicking|panic_with_hook|begin_panic/.test(name)),
    [],
  );
});
