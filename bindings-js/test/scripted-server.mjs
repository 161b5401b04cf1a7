// A local HTTP server (127.0.0.1 only) whose paths answer by script: the
// fixture of the retryFetch tests that need a real socket.
import { createServer } from 'node:http';

/**
 * Starts a server that logs every request by its URL (`seen`: for each URL,
 * its requests' headers and bodies in order) and answers it with
 * `answer(action, response, request, entry)`: `action` is the entry of the
 * URL's script (`scriptOf(url)`, a list whose last entry repeats) for that
 * request's place in the log, `entry` the request's log entry. Resolves to
 * `{ base, seen, close }`; `close()` destroys the sockets still open (a
 * request left unanswered) and closes the server.
 */
export async function scriptedServer(scriptOf, answer) {
  const seen = new Map();
  const sockets = new Set();
  const server = createServer((request, response) => {
    const chunks = [];
    request.on('data', (chunk) => chunks.push(chunk));
    request.on('end', () => {
      const log = seen.get(request.url) ?? [];
      seen.set(request.url, log);
      const entry = { headers: request.headers, body: Buffer.concat(chunks).toString() };
      log.push(entry);
      const script = scriptOf(request.url);
      answer(script[Math.min(log.length, script.length) - 1], response, request, entry);
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const close = async () => {
    for (const socket of sockets) socket.destroy();
    await new Promise((resolve) => server.close(resolve));
  };
  return { base: `http://127.0.0.1:${server.address().port}`, seen, close };
}
