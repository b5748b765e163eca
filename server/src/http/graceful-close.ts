import type { Socket } from 'node:net';
import tls from 'node:tls';
import type { FastifyInstance } from 'fastify';

/**
 * Graceful close (SIGTERM/SIGINT): requests in flight may finish, every other connection is
 * closed. Node closes idle connections only once, when close() starts, and counts a connection
 * that has not sent a complete request yet as busy; so while closing, every 25 ms, each
 * connection without a request being answered is destroyed (also one whose answer finished after
 * close() began).
 */
export function registerGracefulClose(app: FastifyInstance): void {
  const server = app.server;
  const inFlight = new Map<Socket, number>();
  const connectionEvent = server instanceof tls.Server ? 'secureConnection' : 'connection';
  server.on(connectionEvent, (socket: Socket) => {
    inFlight.set(socket, 0);
    socket.once('close', () => inFlight.delete(socket));
  });
  server.on('request', (req: { socket: Socket }, res: { once(e: 'close', f: () => void): void }) => {
    const socket = req.socket;
    inFlight.set(socket, (inFlight.get(socket) ?? 0) + 1);
    res.once('close', () => {
      if (inFlight.has(socket)) inFlight.set(socket, Math.max(0, inFlight.get(socket)! - 1));
    });
  });
  app.addHook('preClose', async () => {
    const sweep = () => {
      for (const [socket, n] of inFlight) if (n === 0) socket.destroy();
    };
    sweep();
    const timer = setInterval(sweep, 25).unref();
    server.once('close', () => clearInterval(timer));
  });
}
