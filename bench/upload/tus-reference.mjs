// The comparison point of bench/upload: @tus/server with @tus/file-store, as its own process.
//   node bench/upload/tus-reference.mjs <port> <store directory>
import http from 'node:http';
import { FileStore } from '@tus/file-store';
import { Server } from '@tus/server';

const [port, directory] = process.argv.slice(2);
const tus = new Server({ path: '/files', datastore: new FileStore({ directory }) });
const server = http.createServer((req, res) => void tus.handle(req, res));
server.listen(Number(port), '127.0.0.1', () => process.stdout.write('ready\n'));
