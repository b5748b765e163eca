/**
 * A WebDAV body that barely moves is cut off (issue 19, hardening): a PUT whose client trickles
 * bytes, or a GET whose client stopped reading, would otherwise hold its connection, its open file
 * and, for a PUT, its staging file for as long as the client likes (the server has no request
 * timeout). The XML bodies of PROPFIND, PROPPATCH and LOCK and a PROPFIND's answer are watched too. In each period of
 * --webdav-idle-timeout at least MIN_BYTES_PER_PERIOD must move over the connection — read from it
 * while a PUT's body comes in, written to it while a GET's answer goes out — or the connection is
 * destroyed. The write then fails (fs/atomic.ts removes the staging file; the old file stays) and
 * the download's file is closed (http/send-file.ts ends on the connection's close).
 */
import type { FastifyReply, FastifyRequest } from 'fastify';

/** Bytes that must move per period: 16 KiB a minute by default, far below any real connection. */
export const MIN_BYTES_PER_PERIOD = 16 * 1024;

/**
 * Watches `req`'s connection from now until its answer is finished: `in` counts bytes read (and
 * stops once the request body is complete: the write, its fsync and events are the server's time),
 * `out` bytes written. `periodMs` 0 (or less) watches nothing.
 */
export function cutWhenIdle(req: FastifyRequest, reply: FastifyReply, direction: 'in' | 'out', periodMs: number): void {
  if (!(periodMs > 0)) return;
  const socket = req.raw.socket;
  const moved = () => (direction === 'in' ? socket.bytesRead : socket.bytesWritten);
  let last = moved();
  const stop = () => {
    clearInterval(timer);
    reply.raw.off('close', stop);
  };
  const timer = setInterval(() => {
    if (direction === 'in' && req.raw.complete) return stop();
    const now = moved();
    if (now - last >= MIN_BYTES_PER_PERIOD) {
      last = now;
      return;
    }
    stop();
    req.log.info({ event: 'webdav_idle', direction, bytes: now - last, periodMs }, 'WebDAV transfer too slow: connection closed');
    socket.destroy();
  }, periodMs);
  timer.unref();
  reply.raw.once('close', stop);
}
