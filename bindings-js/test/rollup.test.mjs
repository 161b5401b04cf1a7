// retryplan/rollup, the bundler plugin: its hooks called as a bundler calls
// them (a good policy, a bad one, a dependency, the query's kinds), then real
// builds with Rolldown and Vite (both devDependencies already) of the
// README's page (examples/compiled-page.js), run in Node.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync, cpSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { spawnSync } from 'node:child_process';
import { rolldown } from 'rolldown';
import { build } from 'vite';
import retryplan, { formModule } from 'retryplan/rollup';
import { Dependency, Policy, RetryplanError } from 'retryplan';
import { compileDependency, compilePolicy } from 'retryplan/tools';

const packageRoot = fileURLToPath(new URL('../', import.meta.url));
const CHECKOUT = { max_attempts: 3, total_timeout_ms: 800, idempotency: 'keyed' };
const SHOP = { retry_slots: 4 };

// Inside the package, so that the built page's `import 'retryplan'` resolves to it by name.
let work;
before(() => {
  work = mkdtempSync(join(packageRoot, '.rollup-'));
  writeFileSync(join(work, 'checkout.policy.json'), JSON.stringify(CHECKOUT));
  writeFileSync(join(work, 'shop.dependency.json'), JSON.stringify(SHOP));
  writeFileSync(join(work, 'broken.policy.json'), JSON.stringify({ max_attempts: 0 }));
  cpSync(fileURLToPath(new URL('../examples/compiled-page.js', import.meta.url)), join(work, 'page.js'));
  writeFileSync(join(work, 'bad.js'), "import form from './broken.policy.json?retryplan';\nexport default form;\n");
});
after(() => rmSync(work, { recursive: true, force: true }));

/** A bundler's plugin context, as much as the plugin uses: resolves relative paths, records watched files, throws errors. */
function context() {
  const watched = [];
  return {
    watched,
    async resolve(source, importer) {
      return { id: resolve(importer ? dirname(importer) : work, source) };
    },
    addWatchFile(id) {
      watched.push(id);
    },
    error(error) {
      throw Object.assign(
        new Error(typeof error === 'string' ? error : error.message),
        { plugin: 'retryplan' },
        typeof error === 'string' ? {} : error,
      );
    },
  };
}

/** The module the plugin loads for `id`, imported. */
async function loaded(plugin, ctx, id) {
  const { code } = await plugin.load.call(ctx, id);
  return (await import(`data:text/javascript,${encodeURIComponent(code)}`)).default;
}

test('resolveId keeps the query on the resolved file, naming the kind; other ids are not its own', async () => {
  const plugin = retryplan();
  const ctx = context();
  const importer = join(work, 'page.js');
  assert.equal(
    await plugin.resolveId.call(ctx, './checkout.policy.json?retryplan', importer, {}),
    join(work, 'checkout.policy.json?retryplan=policy'),
  );
  assert.equal(
    await plugin.resolveId.call(ctx, './shop.dependency.json?retryplan=dependency', importer, {}),
    join(work, 'shop.dependency.json?retryplan=dependency'),
  );
  assert.equal(await plugin.resolveId.call(ctx, './checkout.policy.json', importer, {}), null);
  assert.equal(await plugin.resolveId.call(ctx, './checkout.policy.json?raw', importer, {}), null);
  assert.equal(await plugin.load.call(ctx, join(work, 'checkout.policy.json')), null);
  // Left unresolved (the bundler reports it) when nothing resolves the file.
  assert.equal(
    await plugin.resolveId.call({ ...ctx, resolve: async () => null }, './missing.json?retryplan', importer, {}),
    null,
  );
});

test('a policy: its compiled form as a Uint8Array literal, the bytes compilePolicy writes; the file is watched', async () => {
  const plugin = retryplan();
  const ctx = context();
  const file = join(work, 'checkout.policy.json');
  for (const query of ['?retryplan', '?retryplan=policy']) {
    const form = await loaded(plugin, ctx, file + query);
    assert.ok(form instanceof Uint8Array);
    assert.deepEqual(form, compilePolicy(CHECKOUT));
    const policy = Policy.fromCompiled(form);
    assert.deepEqual([policy.maxAttempts, policy.totalTimeoutMs], [3, 800]);
  }
  assert.deepEqual(ctx.watched, [file, file]);
  assert.equal(formModule(new Uint8Array([114, 112, 0, 255])), 'export default new Uint8Array([114,112,0,255]);\n');
});

test('a dependency with ?retryplan=dependency; a dependency read as a policy, or a kind it does not know, fails naming the file', async () => {
  const plugin = retryplan();
  const ctx = context();
  const file = join(work, 'shop.dependency.json');
  const form = await loaded(plugin, ctx, `${file}?retryplan=dependency`);
  assert.deepEqual(form, compileDependency(SHOP));
  assert.equal(Dependency.fromCompiled(form).retrySlots.capacity, 4);
  await assert.rejects(plugin.load.call(ctx, `${file}?retryplan`), (error) => {
    assert.ok(error.message.startsWith(`${file}: `), error.message);
    assert.match(error.message, /retry_slots/);
    return true;
  });
  await assert.rejects(plugin.load.call(ctx, `${file}?retryplan=budget`), {
    message: `${file}: ?retryplan=budget is not a kind retryplan compiles: use ?retryplan (a policy) or ?retryplan=dependency`,
  });
  await assert.rejects(plugin.load.call(ctx, `${join(work, 'absent.json')}?retryplan`), (error) => {
    assert.ok(error.message.startsWith(`${join(work, 'absent.json')}: cannot read the policy: ENOENT`), error.message);
    return true;
  });
});

test("runtime: 'lean' resolves retryplan to the lean runtime and fails the build at a dependency, naming the file; another runtime is refused", async () => {
  const plugin = retryplan({ runtime: 'lean' });
  const importer = join(work, 'page.js');
  const asked = [];
  const ctx = {
    ...context(),
    async resolve(source, from, options) {
      asked.push([source, from, options.skipSelf]);
      return { id: `resolved:${source}` };
    },
  };
  assert.deepEqual(await plugin.resolveId.call(ctx, 'retryplan', importer, {}), { id: 'resolved:retryplan/lean' });
  assert.deepEqual(asked, [['retryplan/lean', importer, true]]);
  // Only the bare entry: retryplan/tools and the forms are as before.
  assert.equal(await plugin.resolveId.call(ctx, 'retryplan/tools', importer, {}), null);
  assert.equal(await retryplan().resolveId.call(ctx, 'retryplan', importer, {}), null);
  assert.equal(await retryplan({ runtime: 'default' }).resolveId.call(ctx, 'retryplan', importer, {}), null);
  // A policy compiles as in the default runtime; a dependency fails the build.
  assert.deepEqual(
    await loaded(plugin, context(), `${join(work, 'checkout.policy.json')}?retryplan`),
    compilePolicy(CHECKOUT),
  );
  const file = join(work, 'shop.dependency.json');
  await assert.rejects(plugin.load.call(context(), `${file}?retryplan=dependency`), {
    message: `${file}: a dependency (shared controls) is not in the lean runtime this page is built with (retryplan({ runtime: 'lean' })): build it with retryplan() to use the dependency`,
  });
  assert.throws(() => retryplan({ runtime: 'small' }), {
    name: 'TypeError',
    message: `retryplan/rollup: runtime "small" is not a runtime: use 'default' (controls included) or 'lean' (no shared controls)`,
  });
});

test("a policy that breaks a rule fails the build with the core's message (field and rule) after the file's path", async () => {
  const plugin = retryplan();
  const ctx = context();
  const file = join(work, 'broken.policy.json');
  let expected;
  try {
    compilePolicy(JSON.stringify({ max_attempts: 0 }));
  } catch (error) {
    expected = error;
  }
  assert.ok(expected instanceof RetryplanError && /max_attempts/.test(expected.message), expected?.message);
  await assert.rejects(plugin.load.call(ctx, `${file}?retryplan`), (error) => {
    assert.equal(error.message, `${file}: ${expected.message}`);
    assert.ok(error.cause instanceof RetryplanError);
    assert.equal(error.cause.code, expected.code);
    return true;
  });
  assert.deepEqual(ctx.watched, [file], 'watched, so a fix rebuilds');
  // JSON that is not JSON: the reader's error, the same way.
  writeFileSync(join(work, 'truncated.policy.json'), '{"max_attempts": ');
  await assert.rejects(
    plugin.load.call(ctx, `${join(work, 'truncated.policy.json')}?retryplan`),
    (error) => error.cause instanceof RetryplanError && error.message.startsWith(join(work, 'truncated.policy.json')),
  );
});

/** The README's page, built by `bundle` into `out`, imported: its limits read from the compiled forms. */
async function checkBuilt(out) {
  const [name] = readdirSync(out).filter((file) => file.endsWith('.js'));
  const code = readFileSync(join(out, name), 'utf8');
  assert.ok(!code.includes('max_attempts') && !code.includes('retry_slots'), 'no JSON in the bundle');
  assert.match(code.replace(/\s/g, ''), /newUint8Array\(\[114,112,/, 'the forms as literals');
  const page = await import(pathToFileURL(join(out, name)).href);
  assert.deepEqual(page.limits, { maxAttempts: 3, totalTimeoutMs: 800, retrySlots: 4 });
  assert.equal(typeof page.placeOrder, 'function');
}

test("the README's page (examples/compiled-page.js) as the README shows it, built by Rolldown with the plugin; the JSON files are its watch files", async () => {
  const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
  assert.ok(
    readme.includes(
      `\`\`\`js\n${readFileSync(new URL('../examples/compiled-page.js', import.meta.url), 'utf8')}\`\`\``,
    ),
    'the README shows examples/compiled-page.js as it is',
  );
  const bundle = await rolldown({
    input: join(work, 'page.js'),
    external: ['retryplan'],
    plugins: [retryplan()],
    logLevel: 'silent',
  });
  const out = join(work, 'rolldown');
  await bundle.write({ dir: out, format: 'esm', minify: true });
  const watched = await bundle.watchFiles;
  await bundle.close();
  for (const file of ['checkout.policy.json', 'shop.dependency.json'])
    assert.ok(watched.includes(join(work, file)), `${file} in ${watched}`);
  await checkBuilt(out);
  // A broken policy fails the build, naming the file and the field.
  await assert.rejects(
    rolldown({ input: join(work, 'bad.js'), plugins: [retryplan()], logLevel: 'silent' }).then((b) => b.generate()),
    (error) => {
      assert.match(String(error.message), /broken\.policy\.json: .*max_attempts/);
      return true;
    },
  );
});

test("the README's page built by Vite (production, the plugin beside Vite's own JSON plugin)", async () => {
  const out = join(work, 'vite');
  await build({
    root: work,
    configFile: false,
    logLevel: 'silent',
    plugins: [retryplan()],
    build: {
      outDir: out,
      emptyOutDir: true,
      lib: { entry: join(work, 'page.js'), formats: ['es'], fileName: 'page' },
      rollupOptions: { external: ['retryplan'] },
    },
  });
  await checkBuilt(out);
  await assert.rejects(
    build({
      root: work,
      configFile: false,
      logLevel: 'silent',
      plugins: [retryplan()],
      build: { write: false, lib: { entry: join(work, 'bad.js'), formats: ['es'] } },
    }),
    /broken\.policy\.json: .*max_attempts/,
  );
});

test('types: the plugin is a Vite and a Rolldown plugin under tsc --strict (their own types; retryplan/imports is checked by the consumer test, installed)', () => {
  writeFileSync(
    join(work, 'typed.ts'),
    `import type { Plugin as VitePlugin, UserConfig } from 'vite';
import type { Plugin as RolldownPlugin } from 'rolldown';
import retryplan from 'retryplan/rollup';

export const vite: VitePlugin = retryplan();
export const rolldown: RolldownPlugin = retryplan();
export const config: UserConfig = { plugins: [retryplan()] };
`,
  );
  const tsc = join(packageRoot, 'node_modules', '.bin', 'tsc');
  const flags = [
    '--strict',
    '--noEmit',
    '--target',
    'es2022',
    '--module',
    'esnext',
    '--moduleResolution',
    'bundler',
    '--lib',
    'es2022,dom',
    '--skipLibCheck',
  ];
  const checked = spawnSync(tsc, [...flags, join(work, 'typed.ts')], { encoding: 'utf8' });
  assert.equal(checked.status, 0, checked.stdout + checked.stderr);
});

test('no entry imports the plugin: it is not in the import graph of either entry, nor copied into tools/lib', () => {
  const seen = new Set();
  const visit = (url) => {
    if (seen.has(url.href)) return;
    seen.add(url.href);
    for (const [, imported] of readFileSync(url, 'utf8').matchAll(/(?:from|import)\s*\(?\s*'(\.[^']+)'/g))
      visit(new URL(imported, url));
  };
  for (const entry of ['lib/browser.js', 'lib/node.js', 'tools/lib/browser.js', 'tools/lib/node.js'])
    visit(new URL(`../${entry}`, import.meta.url));
  assert.ok(seen.size > 20, `walked ${seen.size} modules`);
  assert.ok(![...seen].some((href) => href.endsWith('/rollup.js')), 'the plugin is reached from an entry');
  assert.ok(!readdirSync(new URL('../tools/lib/', import.meta.url)).includes('rollup.js'));
});
