// Types of `retryplan/rollup`, the bundler plugin (lib/rollup.js). The hooks are typed as much as
// the plugin uses of Rollup's plugin context, so the plugin fits Rollup's, Rolldown's and Vite's
// `Plugin` types without this package depending on any of them.

/** What the plugin uses of the bundler's plugin context. */
export interface RetryplanPluginContext {
  resolve(
    source: string,
    importer?: string,
    options?: { skipSelf?: boolean },
  ): Promise<{ id: string; external?: boolean | 'absolute' | 'relative' } | null>;
  addWatchFile(id: string): void;
  error(error: string | { message: string; cause?: unknown }): never;
}

/** The plugin's hooks: `resolveId` and `load` of the ids `…?retryplan` and `…?retryplan=dependency`. */
export interface RetryplanPlugin {
  name: 'retryplan';
  enforce: 'pre';
  resolveId(
    this: RetryplanPluginContext,
    source: string,
    importer: string | undefined,
    options: object,
  ): Promise<string | { id: string; external?: boolean | 'absolute' | 'relative' } | null>;
  load(this: RetryplanPluginContext, id: string): Promise<{ code: string; map: { mappings: '' } } | null>;
}

/** The plugin's options (any other key fails with a TypeError naming it). */
export interface RetryplanPluginOptions {
  /**
   * The runtime the page is built with: `'default'` (the browser runtime, shared controls included)
   * or `'lean'` (`retryplan/lean`: no shared controls, about 5 KB less gzipped; every import of
   * `retryplan` resolves to it, and a `?retryplan=dependency` import fails the build).
   */
  runtime?: 'default' | 'lean';
}

/**
 * The plugin, for `plugins: [retryplan()]` in vite.config or rollup.config: an import of a policy's
 * JSON file with `?retryplan` (or `?retryplan=policy`) is its compiled form (a Uint8Array, for
 * `Policy.fromCompiled`), `?retryplan=dependency` a dependency's (for `Dependency.fromCompiled`),
 * validated when the page is built (a policy that breaks a rule fails the build with the core's
 * message after the file's path). For TypeScript, add `retryplan/imports` to `types`.
 */
export default function retryplan(options?: RetryplanPluginOptions): RetryplanPlugin;

/** The module the plugin writes for a compiled form. */
export function formModule(form: Uint8Array): string;
