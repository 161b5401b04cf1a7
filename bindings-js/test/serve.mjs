// A static file server on 127.0.0.1 for the browser tests: the repository's
// bindings-js/ tree, the conformance vectors, and a scripted /api/ endpoint.
import { createServer, request as forward } from 'node:http';
import { readFile, readdir } from 'node:fs/promises';
import { extname, normalize, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { FILES_NOT_YET_RUN } from './vectors.js';

const types = {
  '.js': 'text/javascript',
  '.mjs': 'text/javascript',
  '.html': 'text/html',
  '.json': 'application/json',
  '.wasm': 'application/wasm',
  '.css': 'text/css',
};

/**
 * Forwards a request to the scenario server as it is, and its answer back as
 * it comes (status, headers, a trickling body), so the page's fetch reaches
 * the server from its own origin. A reset or refused upstream connection
 * resets the page's; a page that goes away takes the upstream request along.
 */
function relay(request, response, port, keepAlive) {
  const upstream = forward({
    host: '127.0.0.1',
    port,
    method: request.method,
    path: request.url,
    headers: request.headers,
  });
  upstream.on('response', (answer) => {
    const { connection: _, ...headers } = answer.headers;
    response.writeHead(
      answer.statusCode,
      answer.statusMessage,
      keepAlive ? headers : { ...headers, connection: 'close' },
    );
    answer.pipe(response);
  });
  upstream.on('error', () => request.socket.resetAndDestroy());
  response.on('close', () => upstream.destroy());
  request.pipe(upstream);
}

/** The propagation headers a request carried (`retryplan-*`, `grpc-*`), by name: a page's carry none. */
const propagationHeaders = (request) =>
  Object.keys(request.headers).filter((name) => name.startsWith('retryplan-') || name.startsWith('grpc-'));

/**
 * Serves files (and `/api/` scripted answers) on 127.0.0.1; with
 * `scenarioPort`, relays `/s/*` to the scenario server. Every response closes
 * its connection: a browser silently resends a request (a POST too) whose
 * reused keep-alive connection is reset, which would hide what a helper did;
 * unless `keepAlive`, for the test of that very resend.
 */
export async function serve({ root, vectors, mounts = {}, scenarioPort, keepAlive = false }) {
  const seen = [];
  const server = createServer(async (request, response) => {
    const url = new URL(request.url, 'http://x');
    const path = decodeURIComponent(url.pathname);
    if (!keepAlive) response.setHeader('connection', 'close');
    if (scenarioPort !== undefined && path.startsWith('/s/')) return relay(request, response, scenarioPort, keepAlive);
    if (path === '/api/busy-then-ok') {
      for await (const _ of request);
      seen.push({
        key: request.headers['idempotency-key'],
        requestId: request.headers['x-request-id'],
        propagation: propagationHeaders(request),
      });
      if (seen.length === 1) return response.writeHead(503, { 'retry-after': '1' }).end('busy');
      return response.writeHead(200, { 'content-type': 'text/plain' }).end('done');
    }
    if (path === '/api/orders') {
      // The README's checkout pages (test/page.test.mjs): busy once, then the order placed.
      const chunks = [];
      for await (const chunk of request) chunks.push(chunk);
      const body = Buffer.concat(chunks).toString('utf8');
      seen.push({
        key: request.headers['idempotency-key'],
        requestId: request.headers['x-request-id'],
        method: request.method,
        body,
        propagation: propagationHeaders(request),
      });
      if (seen.length === 1) return response.writeHead(503, { 'retry-after': '0' }).end('busy');
      return response
        .writeHead(201, { 'content-type': 'application/json' })
        .end(JSON.stringify({ placed: JSON.parse(body) }));
    }
    if (path === '/api/seen')
      return response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(seen));
    if (path === '/vectors/index.json') {
      const names = (await readdir(vectors))
        .filter((n) => n.endsWith('.json') && n !== 'schema.json' && !FILES_NOT_YET_RUN.has(n))
        .sort();
      return response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(names));
    }
    let file;
    const mount = Object.keys(mounts).find((prefix) => path.startsWith(prefix));
    if (mount) file = join(mounts[mount], normalize(path.slice(mount.length)));
    else if (path.startsWith('/vectors/')) file = join(vectors, normalize(path.slice('/vectors/'.length)));
    else file = join(root, normalize(path));
    if (file.endsWith('/')) file += 'index.html';
    try {
      const body = await readFile(file);
      response.writeHead(200, { 'content-type': types[extname(file)] ?? 'application/octet-stream' }).end(body);
    } catch {
      response.writeHead(404).end('not found');
    }
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    close: () =>
      new Promise((resolve) => {
        server.close(resolve);
        server.closeAllConnections();
      }),
  };
}

export const repoRoot = fileURLToPath(new URL('../../', import.meta.url));
