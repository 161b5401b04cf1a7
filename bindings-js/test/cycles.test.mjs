// No import cycle among the package's JS modules: lib/ (with lib/runtime/ and
// lib/generated/) and each build's wasm-bindgen glue, whose imports of
// ../lib/ (convert.js, outcomes.js) are edges too. (The Rust modules of
// src/ are checked by scripts/check_module_cycles.py, which test.sh runs.)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../', import.meta.url));

/** Every module reachable from `starts` by relative imports, with its imports. */
function graphOf(starts) {
  const graph = new Map();
  const todo = [...starts];
  while (todo.length > 0) {
    const file = todo.pop();
    if (graph.has(file) || !existsSync(file)) continue;
    const source = readFileSync(file, 'utf8');
    const imports = [...source.matchAll(/(?:from|import)\s*['"](\.[^'"]+)['"]/g)].map(([, path]) =>
      normalize(join(dirname(file), path)),
    );
    graph.set(file, imports);
    todo.push(...imports);
  }
  return graph;
}

/** The cycles of `graph` (its strongly connected components of more than one module, or a module importing itself). */
function cycles(graph) {
  const index = new Map();
  const low = new Map();
  const stack = [];
  const found = [];
  let next = 0;
  const visit = (node) => {
    index.set(node, next);
    low.set(node, next);
    next += 1;
    stack.push(node);
    for (const to of graph.get(node) ?? []) {
      if (!index.has(to)) {
        visit(to);
        low.set(node, Math.min(low.get(node), low.get(to)));
      } else if (stack.includes(to)) low.set(node, Math.min(low.get(node), index.get(to)));
    }
    if (low.get(node) === index.get(node)) {
      const component = stack.splice(stack.indexOf(node));
      if (component.length > 1 || (graph.get(node) ?? []).includes(node))
        found.push(component.map((file) => relative(root, file)).sort());
    }
  };
  for (const node of graph.keys()) if (!index.has(node)) visit(node);
  return found;
}

const modules = (dir) =>
  existsSync(join(root, dir))
    ? readdirSync(join(root, dir))
        .filter((name) => name.endsWith('.js'))
        .map((name) => join(root, dir, name))
    : [];

test("no import cycle among lib/, lib/runtime/, lib/generated/ and the builds' glue", () => {
  const starts = [
    ...modules('lib'),
    ...modules('lib/runtime'),
    ...modules('lib/generated'),
    ...['wasm', 'tools/wasm', 'browser/wasm'].map((dir) => join(root, dir, 'retryplan_js.js')),
  ];
  const graph = graphOf(starts);
  assert.ok(graph.size > 30, `${graph.size} modules`);
  assert.deepEqual(cycles(graph), []);
});

test('the check finds a cycle when there is one', () => {
  const a = join(root, 'a.js');
  const b = join(root, 'b.js');
  assert.deepEqual(
    cycles(
      new Map([
        [a, [b]],
        [b, [a]],
      ]),
    ),
    [['a.js', 'b.js']],
  );
  assert.deepEqual(
    cycles(
      new Map([
        [a, [b]],
        [b, []],
      ]),
    ),
    [],
  );
});

test('sideEffects: only the entries (and the tools, which extend the classes) run statements at module scope; every other module only declares', () => {
  const declared = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).sideEffects;
  assert.ok(
    Array.isArray(declared) && declared.includes('./browser/lib/browser.js') && declared.includes('./lib/node.js'),
  );
  // What a module may hold at its top level: imports, exports, declarations and what continues them.
  const DECLARES = /^(?:import|export|const|let|function|async function|class|\/\/|\/\*|\*| |\t|\}|\]|\)|$)/;
  const offending = [];
  for (const file of [...modules('lib'), ...modules('lib/runtime'), ...modules('lib/generated')]) {
    const path = `./${relative(root, file)}`;
    const shipped = path.startsWith('./lib/runtime/') ? `./browser/lib/${path.slice('./lib/runtime/'.length)}` : path;
    if (declared.includes(path) || declared.includes(shipped) || path === './lib/rollup.js') continue;
    readFileSync(file, 'utf8')
      .split('\n')
      .forEach((line, index) => {
        if (!DECLARES.test(line)) offending.push(`${path}:${index + 1}: ${line}`);
      });
  }
  assert.deepEqual(offending, []);
});
