// The shared scenario server (tests/helpers/server.py) as a child process:
// started with a stdin pipe (it stops when the pipe closes), its port read
// from its first line; and the URLs a scenario's request goes to.
import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';

const script = fileURLToPath(new URL('../../tests/helpers/server.py', import.meta.url));

/** Starts server.py on the shared scenarios, or on the scenario file `file`. */
export async function startScenarioServer(file) {
  const child = spawn(process.env.PYTHON ?? 'python3', file === undefined ? [script] : [script, file], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const port = await new Promise((resolve, reject) => {
    let text = '';
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`server.py exited (${code}) before listening`)));
    child.stdout.on('data', (chunk) => {
      text += chunk;
      const match = /^listening 127\.0\.0\.1:(\d+)\n/.exec(text);
      if (match) resolve(Number(match[1]));
    });
  });
  const base = `http://127.0.0.1:${port}`;
  return {
    port,
    reset: async () => void (await (await fetch(`${base}/__reset`, { method: 'POST' })).text()),
    log: async (id) => (await fetch(`${base}/__log/${id}`)).json(),
    stop: () => {
      child.stdin.end();
      child.kill();
    },
  };
}

/** A port on 127.0.0.1 that was bound and closed: connecting to it is refused. */
export async function closedPort() {
  const server = createServer();
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Where a scenario's request goes: `base` (the server), a name that never resolves, or a closed port. */
export function scenarioUrl(scenario, port, closedAt, base = `http://127.0.0.1:${port}`) {
  const path = `/s/${scenario.id}`;
  switch (scenario.request.host ?? 'server') {
    case 'invalid_dns':
      return `http://retryplan-test.invalid:${port}${path}`;
    case 'closed_port':
      return `http://127.0.0.1:${closedAt}${path}`;
    default:
      return `${base}${path}`;
  }
}
