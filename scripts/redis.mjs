// A throw-away Redis for the tests: Debian's redis-server on 127.0.0.1 on a free port, no
// persistence, in the foreground (a child of this process). `stop()` and `start()` again on the
// same port let a test take Redis away and bring it back.
import { spawn } from 'node:child_process';
import { connect, createServer } from 'node:net';

export const REDIS_SERVER = '/usr/bin/redis-server';

export function freePort() {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
    s.on('error', reject);
  });
}

/** Resolves once `PING` answers `+PONG` on the port, rejects after `timeoutMs`. */
function waitForPong(port, timeoutMs = 5000) {
  const deadline = Date.now() + timeoutMs;
  return new Promise((resolve, reject) => {
    const attempt = () => {
      const sock = connect(port, '127.0.0.1');
      let got = '';
      sock.on('connect', () => sock.write('PING\r\n'));
      sock.on('data', (d) => {
        got += d.toString();
        if (got.includes('+PONG')) {
          sock.destroy();
          resolve();
        }
      });
      sock.on('error', () => {
        sock.destroy();
        if (Date.now() > deadline) reject(new Error(`redis-server did not answer on port ${port}`));
        else setTimeout(attempt, 50);
      });
    };
    attempt();
  });
}

export async function startRedis() {
  const port = await freePort();
  let child = null;
  const redis = {
    port,
    url: `redis://127.0.0.1:${port}`,
    /** Starts (again) on the same port. */
    async start() {
      if (child) return;
      child = spawn(REDIS_SERVER, ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--daemonize', 'no', '--loglevel', 'warning'], {
        stdio: ['ignore', 'ignore', 'inherit'],
      });
      const started = child;
      started.on('exit', () => {
        if (child === started) child = null;
      });
      await waitForPong(port);
    },
    /** Kills it (SIGKILL: as sudden as a crash) and waits until it is gone. */
    async stop() {
      const c = child;
      if (!c) return;
      child = null;
      await new Promise((resolve) => {
        c.once('exit', resolve);
        c.kill('SIGKILL');
      });
    },
  };
  await redis.start();
  return redis;
}
