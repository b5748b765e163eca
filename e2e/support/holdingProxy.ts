/**
 * A pass-through proxy in front of the test server that can hold an answer half-way: for the paths
 * `holds` picks, it sends the first `firstBytes` bytes of the body (uncompressed: the request's
 * Accept-Encoding is dropped) and keeps the rest until `release()`. Lets a test look at the page
 * while a big listing is still arriving.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface HoldingProxy {
  url: string;
  /** Resolves once a held answer's first bytes are out and the rest waits. */
  held(): Promise<void>;
  /** Sends the rest of the held answer; the next held path waits again. */
  release(): void;
  close(): Promise<void>;
}

export async function holdingProxy(
  target: string,
  holds: (pathname: string) => boolean,
  firstBytes = 64 * 1024,
): Promise<HoldingProxy> {
  const upstream = new URL(target);
  let onHeld: () => void = () => undefined;
  let heldNow = new Promise<void>((resolve) => (onHeld = resolve));
  let onRelease: () => void = () => undefined;
  let released = new Promise<void>((resolve) => (onRelease = resolve));

  const server = http.createServer((req, res) => {
    const hold = holds(new URL(req.url ?? '/', 'http://x').pathname);
    const headers = { ...req.headers };
    if (hold) headers['accept-encoding'] = 'identity';
    const up = http.request(
      { host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers },
      (answer) => {
        const out = { ...answer.headers };
        delete out['content-length'];
        delete out['transfer-encoding'];
        res.writeHead(answer.statusCode ?? 502, out);
        if (!hold) {
          answer.pipe(res);
          return;
        }
        const chunks: Buffer[] = [];
        answer.on('data', (c: Buffer) => chunks.push(c));
        answer.on('end', () => {
          const body = Buffer.concat(chunks);
          res.write(body.subarray(0, firstBytes));
          onHeld();
          void released.then(() => res.end(body.subarray(firstBytes)));
        });
      },
    );
    up.on('error', () => res.destroy());
    req.pipe(up);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    held: () => heldNow,
    release() {
      onRelease();
      heldNow = new Promise<void>((resolve) => (onHeld = resolve));
      released = new Promise<void>((resolve) => (onRelease = resolve));
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
