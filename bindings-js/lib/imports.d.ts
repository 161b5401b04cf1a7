// `retryplan/imports`: the modules the bundler plugin (`retryplan/rollup`) makes, for TypeScript.
// Add it to `compilerOptions.types` (or `/// <reference types="retryplan/imports" />`).

/** A policy compiled when the page was built: `Policy.fromCompiled(form)`. */
declare module '*?retryplan' {
  const form: Uint8Array;
  export default form;
}
/** A policy compiled when the page was built: `Policy.fromCompiled(form)`. */
declare module '*?retryplan=policy' {
  const form: Uint8Array;
  export default form;
}
/** A dependency compiled when the page was built: `Dependency.fromCompiled(form)`. */
declare module '*?retryplan=dependency' {
  const form: Uint8Array;
  export default form;
}
