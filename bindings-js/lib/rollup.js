// `retryplan/rollup`: a Rollup plugin (Vite and Rolldown take it as it is)
// that compiles policies when the page is built. An import of a policy's JSON
// file with the query `?retryplan` (or `?retryplan=policy`) is, in the
// bundle, the policy's compiled form: the JSON read and validated by the
// tools entry (`compilePolicy`, every rule and message of
// `Policy.fromJson`), and its bytes written as a `Uint8Array` literal for
// `Policy.fromCompiled`; `?retryplan=dependency` does the same for a
// dependency (`compileDependency`, `Dependency.fromCompiled`). A policy that
// breaks a rule fails the build with the core's message after the file's
// path. The page ships neither the reader nor the JSON.
//
// `retryplan({ runtime: 'lean' })` builds the page with the lean browser
// runtime (`retryplan/lean`: the runtime without the shared controls, about
// 5 KB less gzipped): every `import ... from 'retryplan'` is resolved to it,
// and a dependency compiled for the page (`?retryplan=dependency`) fails the
// build, naming the file, since the lean runtime would refuse it
// (`Dependency.fromCompiled` throws `unsupported` there). The default,
// `runtime: 'default'`, leaves `retryplan` to the bundler (the browser
// runtime, controls included).
//
// Build-time only: it runs in Node, loads the tools entry when it first
// compiles, and no entry of the package imports it.
import { readFile } from 'node:fs/promises';

const QUERY = /\?retryplan(?:=([^&]*))?$/;
const KINDS = { policy: 'compilePolicy', dependency: 'compileDependency' };

/** The file and the kind an id with the query names, or undefined for any other id. */
function parse(id) {
  const match = QUERY.exec(id);
  return match ? { file: id.slice(0, match.index), kind: match[1] ?? 'policy' } : undefined;
}

/** The compiled form as a module: its bytes as a literal (smaller gzipped than base64 and a decoder, and no work at load). */
export const formModule = (form) => `export default new Uint8Array([${form.join(',')}]);\n`;

let tools;

/** The runtimes a page can be built with: what `retryplan` resolves to in each. */
const RUNTIMES = { default: undefined, lean: 'retryplan/lean' };

/** The plugin: `plugins: [retryplan()]` (or `retryplan({ runtime: 'lean' })`) in vite.config.js or rollup.config.js. */
export default function retryplan(options) {
  for (const key of Object.keys(options ?? {}))
    if (key !== 'runtime')
      throw new TypeError(`retryplan/rollup: \`${key}\` is not an option of the plugin (it has \`runtime\`)`);
  const { runtime = 'default' } = options ?? {};
  if (!Object.hasOwn(RUNTIMES, runtime)) {
    throw new TypeError(
      `retryplan/rollup: runtime ${JSON.stringify(runtime)} is not a runtime: use 'default' (controls included) or 'lean' (no shared controls)`,
    );
  }
  const lean = runtime === 'lean';
  return {
    name: 'retryplan',
    // In Vite, before its own resolver (which would keep `?retryplan` as it is: load reads both).
    enforce: 'pre',

    async resolveId(source, importer, options) {
      if (lean && source === 'retryplan') return this.resolve(RUNTIMES.lean, importer, { ...options, skipSelf: true });
      const wanted = parse(source);
      if (wanted === undefined) return null;
      const resolved = await this.resolve(wanted.file, importer, { ...options, skipSelf: true });
      if (!resolved || resolved.external) return resolved;
      return `${resolved.id}?retryplan=${wanted.kind}`;
    },

    async load(id) {
      const wanted = parse(id);
      if (wanted === undefined) return null;
      const { file, kind } = wanted;
      if (!Object.hasOwn(KINDS, kind)) {
        this.error(
          `${file}: ?retryplan=${kind} is not a kind retryplan compiles: use ?retryplan (a policy) or ?retryplan=dependency`,
        );
      }
      if (lean && kind === 'dependency') {
        this.error(
          `${file}: a dependency (shared controls) is not in the lean runtime this page is built with (retryplan({ runtime: 'lean' })): build it with retryplan() to use the dependency`,
        );
      }
      this.addWatchFile(file);
      let text;
      try {
        text = await readFile(file, 'utf8');
      } catch (error) {
        this.error(`${file}: cannot read the ${kind}: ${error.message}`);
      }
      tools ??= await import('../tools/lib/node.js');
      let form;
      try {
        form = tools[KINDS[kind]](text);
      } catch (error) {
        if (!(error instanceof tools.RetryplanError)) throw error;
        this.error({ message: `${file}: ${error.message}`, cause: error });
      }
      return { code: formModule(form), map: { mappings: '' } };
    },
  };
}
