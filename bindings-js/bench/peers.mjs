// The peer libraries of bench.mjs, resolved from bench/node_modules (installed
// by `npm run bench`: `npm ci --prefix bench`), not from the package's own
// devDependencies.
export { default as pRetry } from 'p-retry';
export { ConstantBackoff, handleAll, retry } from 'cockatiel';
