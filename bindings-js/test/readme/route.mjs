// Preloaded (`node --import`) by test/readme.test.mjs into each README block's
// process: `https://HOST.example/PATH` goes to the local test server
// (tests/helpers/server.py with tests/helpers/readme-hosts.json) as scenario
// `HOST.example/PATH`, so the examples run as written. The port is
// RETRYPLAN_README_PORT; at exit it prints `readme: N routed` on stderr.
const port = process.env.RETRYPLAN_README_PORT;
const send = globalThis.fetch;
let routed = 0;

/** The local server's URL for an `.example` URL, or undefined for any other. */
function local(url) {
  const parsed = new URL(url);
  if (!parsed.hostname.endsWith('.example')) return undefined;
  routed += 1;
  return `http://127.0.0.1:${port}/s/${parsed.hostname}${parsed.pathname}${parsed.search}`;
}

globalThis.fetch = (input, init) => {
  if (input instanceof Request) {
    const to = local(input.url);
    return send(to === undefined ? input : new Request(to, input), init);
  }
  return send(local(String(input)) ?? input, init);
};
process.on('exit', () => process.stderr.write(`readme: ${routed} routed\n`));
