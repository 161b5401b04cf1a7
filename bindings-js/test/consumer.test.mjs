// The package as a consumer gets it (npm pack): tsc --strict on a TypeScript
// consumer, and a Vite build of a tiny page (the browser runtime, its policy
// compiled by the plugin), opened in Chromium.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'vite';
import { serve } from './serve.mjs';
import { withPage, resultOf } from './chromium.mjs';

const packageRoot = fileURLToPath(new URL('../', import.meta.url));
let work;
let app;

before(() => {
  work = mkdtempSync(join(tmpdir(), 'retryplan-consumer-'));
  app = join(work, 'app');
  cpSync(fileURLToPath(new URL('./consumer/', import.meta.url)), app, { recursive: true });
  const tarball = execFileSync('npm', ['pack', '--silent', '--pack-destination', work], {
    cwd: packageRoot,
    encoding: 'utf8',
  })
    .trim()
    .split('\n')
    .at(-1);
  const installed = join(app, 'node_modules', 'retryplan');
  mkdirSync(installed, { recursive: true });
  execFileSync('tar', ['xzf', join(work, tarball), '-C', installed, '--strip-components=1']);
  // The page's policy file: the checkout profile, as the tools entry writes it.
  const tools = spawnSync(
    process.execPath,
    [
      '--input-type=module',
      '-e',
      "import { Policy } from 'retryplan/tools'; process.stdout.write(Policy.profile('checkout').toJson());",
    ],
    { cwd: packageRoot, encoding: 'utf8' },
  );
  writeFileSync(join(app, 'checkout.policy.json'), tools.stdout);
});

after(() => rmSync(work, { recursive: true, force: true }));

test('the packed package holds every entry: their JS, glue, wasm and types (the lean browser runtime too)', () => {
  const files = (dir) => readdirSync(join(app, 'node_modules', 'retryplan', dir)).sort();
  assert.deepEqual(files('wasm'), ['retryplan_js.js', 'retryplan_js_bg.wasm']);
  assert.deepEqual(files('tools/wasm'), ['retryplan_js.js', 'retryplan_js_bg.wasm']);
  assert.deepEqual(files('browser/wasm'), ['retryplan_js.js', 'retryplan_js_bg.wasm']);
  assert.deepEqual(files('browser-lean/wasm'), ['retryplan_js.js', 'retryplan_js_bg.wasm']);
  for (const name of ['browser.js', 'api.js', 'convert.js', 'messages.js', 'error.js']) {
    assert.ok(files('browser/lib').includes(name), `browser/lib/${name}`);
    assert.ok(files('browser-lean/lib').includes(name), `browser-lean/lib/${name}`);
  }
  const lib = [
    'browser.js',
    'node.js',
    'api.js',
    'convert.js',
    'constants.js',
    'driver.js',
    'endings.js',
    'entropy.js',
    'failures.js',
    'helpers.js',
    'host.js',
    'operation.js',
    'outcomes.js',
    'wire.js',
    'index.d.ts',
    'tools.d.ts',
  ];
  for (const name of lib) assert.ok(files('lib').includes(name), name);
  for (const name of ['rollup.js', 'rollup.d.ts', 'imports.d.ts'])
    assert.ok(files('lib').includes(name), `the bundler plugin's lib/${name}`);
  for (const name of ['browser.js', 'node.js', 'api.js', 'tools.js', 'convert.js'])
    assert.ok(files('tools/lib').includes(name), `tools/lib/${name}`);
  for (const name of ['LICENSE-MIT', 'LICENSE-APACHE', 'README.md', 'package.json'])
    assert.ok(files('.').includes(name), name);
  assert.match(
    readFileSync(join(app, 'node_modules', 'retryplan', 'LICENSE-MIT'), 'utf8'),
    /Copyright \(c\) The retryplan developers/,
  );
});

test('npm pack refuses a package that was not built', () => {
  const bare = join(work, 'unbuilt');
  mkdirSync(bare);
  for (const name of ['package.json', 'prepack.mjs', 'README.md']) cpSync(join(packageRoot, name), join(bare, name));
  const packed = spawnSync('npm', ['pack', '--dry-run'], { cwd: bare, encoding: 'utf8' });
  assert.notEqual(packed.status, 0);
  assert.match(
    packed.stderr,
    /refusing to pack without a build \(missing wasm\/retryplan_js\.js, .*\): run \.\/build\.sh first/,
  );
});

test('tsc --strict accepts a TypeScript consumer', () => {
  const tsc = join(packageRoot, 'node_modules', '.bin', 'tsc');
  execFileSync(tsc, ['-p', join(app, 'tsconfig.json')], { stdio: 'pipe' });
});

test("tsc --strict under the `browser` condition reads the browser runtime's types: what it does not carry is a type error", () => {
  const tsc = join(packageRoot, 'node_modules', '.bin', 'tsc');
  execFileSync(tsc, ['-p', join(app, 'tsconfig.browser.json')], { stdio: 'pipe' });
  // The @ts-expect-error lines hold because the runtime's types differ: under the default types they do not.
  writeFileSync(
    join(app, 'tsconfig.default.json'),
    JSON.stringify({ extends: './tsconfig.json', files: ['browser.ts'] }),
  );
  const plain = spawnSync(tsc, ['-p', join(app, 'tsconfig.default.json')], { encoding: 'utf8' });
  assert.notEqual(plain.status, 0);
  assert.match(plain.stdout, /browser\.ts\(\d+,\d+\): error TS2578: Unused '@ts-expect-error' directive/);
});

test("tsc --strict reads the lean runtime's types (retryplan/lean): the shared controls are a type error there, not in the browser runtime's", () => {
  const tsc = join(packageRoot, 'node_modules', '.bin', 'tsc');
  writeFileSync(join(app, 'tsconfig.lean.json'), JSON.stringify({ extends: './tsconfig.json', files: ['lean.ts'] }));
  execFileSync(tsc, ['-p', join(app, 'tsconfig.lean.json')], { stdio: 'pipe' });
  // The same page against the browser runtime's types: Dependency.fromCompiled is real there.
  writeFileSync(
    join(app, 'lean-as-browser.ts'),
    readFileSync(join(app, 'lean.ts'), 'utf8').replace("from 'retryplan/lean'", "from 'retryplan'"),
  );
  writeFileSync(
    join(app, 'tsconfig.lean-as-browser.json'),
    JSON.stringify({ extends: './tsconfig.browser.json', files: ['lean-as-browser.ts'] }),
  );
  const browser = spawnSync(tsc, ['-p', join(app, 'tsconfig.lean-as-browser.json')], { encoding: 'utf8' });
  assert.notEqual(browser.status, 0);
  assert.match(browser.stdout, /lean-as-browser\.ts\(10,\d+\): error TS2578: Unused '@ts-expect-error' directive/);
});

test('tsc --strict accepts a Node consumer without the DOM library (@types/node only): no DOM-only type in the declarations', () => {
  const tsc = join(packageRoot, 'node_modules', '.bin', 'tsc');
  const nodeTypes = join(app, 'node_modules', '@types');
  mkdirSync(nodeTypes, { recursive: true });
  cpSync(join(packageRoot, 'node_modules', '@types', 'node'), join(nodeTypes, 'node'), { recursive: true });
  cpSync(join(packageRoot, 'node_modules', 'undici-types'), join(app, 'node_modules', 'undici-types'), {
    recursive: true,
  });
  const config = {
    extends: './tsconfig.json',
    compilerOptions: { lib: ['es2023'], types: ['node'], module: 'nodenext', moduleResolution: 'nodenext' },
    files: ['node.mts'],
  };
  writeFileSync(join(app, 'tsconfig.node.json'), JSON.stringify(config));
  const checked = spawnSync(tsc, ['-p', join(app, 'tsconfig.node.json')], { encoding: 'utf8' });
  assert.equal(checked.status, 0, checked.stdout);
});

test('in Node, retryplan/lean is the default runtime: a server-side render or a Vitest run of a lean page imports it', () => {
  // The lean runtime's loader fetches its wasm, which Node cannot do from a file: Node gets the Node entry.
  const script =
    "import { Policy } from 'retryplan/lean'; process.stdout.write(String(Policy.profile('checkout').maxAttempts));";
  const ran = spawnSync(process.execPath, ['--input-type=module', '-e', script], { cwd: app, encoding: 'utf8' });
  assert.equal(ran.stderr, '');
  assert.equal(ran.stdout, '3');
});

test("the README's checkout example type-checks under tsc --strict as written, and runs in Node", async () => {
  const example = new URL('../examples/checkout.mts', import.meta.url);
  const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
  assert.ok(
    readme.includes(`\`\`\`ts\n${readFileSync(example, 'utf8')}\`\`\``),
    'the README shows examples/checkout.mts as it is',
  );
  cpSync(fileURLToPath(example), join(app, 'checkout.mts'));
  const tsc = join(packageRoot, 'node_modules', '.bin', 'tsc');
  const flags = [
    '--strict',
    '--target',
    'es2022',
    '--module',
    'nodenext',
    '--lib',
    'es2022,dom',
    '--outDir',
    join(app, 'out'),
  ];
  execFileSync(tsc, [...flags, join(app, 'checkout.mts')], { stdio: 'pipe' });
  // A shop that is busy once, then takes the order.
  const seen = [];
  const shop = createServer((request, response) => {
    seen.push([request.method, request.url, request.headers['idempotency-key']]);
    if (seen.length === 1) return response.writeHead(503).end();
    response.writeHead(201, { 'content-type': 'application/json' }).end('{"order": 42}');
  });
  await new Promise((resolve) => shop.listen(0, '127.0.0.1', resolve));
  try {
    const { placeOrder } = await import(pathToFileURL(join(app, 'out', 'checkout.mjs')).href);
    assert.deepEqual(await placeOrder(`http://127.0.0.1:${shop.address().port}`, { sku: 'tea', quantity: 1 }), {
      order: 42,
    });
    assert.equal(seen.length, 2);
    assert.deepEqual(
      seen.map(([method, url]) => [method, url]),
      [
        ['POST', '/api/orders'],
        ['POST', '/api/orders'],
      ],
    );
    assert.equal(seen[0][2], seen[1][2], 'one idempotency key for both attempts');
  } finally {
    shop.close();
  }
});

test("Vite bundles a page that imports the default entry with a compiled policy, ships the browser runtime's wasm only, and it runs in Chromium", async () => {
  const outDir = join(app, 'dist');
  const { default: retryplan } = await import(
    pathToFileURL(join(app, 'node_modules', 'retryplan', 'lib', 'rollup.js')).href
  );
  await build({
    root: app,
    logLevel: 'warn',
    configFile: false,
    plugins: [retryplan()],
    build: { outDir, emptyOutDir: true },
  });
  const assets = readdirSync(join(outDir, 'assets'));
  const wasm = assets.filter((name) => name.endsWith('.wasm'));
  assert.equal(wasm.length, 1, `one .wasm among ${assets}`);
  // Told apart by size: the page ships the browser runtime's wasm, not Node's default one nor the tools'.
  const size = (path) => statSync(path).size;
  const runtime = size(join(packageRoot, 'browser', 'wasm', 'retryplan_js_bg.wasm'));
  const lean = size(join(packageRoot, 'wasm', 'retryplan_js_bg.wasm'));
  const tools = size(join(packageRoot, 'tools', 'wasm', 'retryplan_js_bg.wasm'));
  assert.equal(new Set([runtime, lean, tools]).size, 3);
  assert.equal(size(join(outDir, 'assets', wasm[0])), runtime, "the browser runtime's wasm");
  const server = await serve({ root: outDir, vectors: outDir });
  try {
    await withPage(async (page, errors) => {
      const result = await resultOf(page, `${server.url}/`);
      assert.deepEqual(errors, []);
      assert.deepEqual(result.profiles, [
        'read',
        'checkout',
        'write_keyed',
        'write_strict',
        'background',
        'aws_standard',
        'aws_standard_2026',
        'aws_standard_2026_dynamodb',
        'polly_v8',
      ]);
      assert.deepEqual(result.first, {
        type: 'start_attempt',
        attempt: 1,
        timeoutMs: 200,
        abortAtMs: 250,
        requestId: '92c2a5665ff07619',
        remainingMs: 700,
        hedge: false,
      });
      assert.deepEqual(result.profile, { code: 'unsupported', field: 'Policy.profile', blame: 'configuration' });
    });
  } finally {
    await server.close();
  }
});
