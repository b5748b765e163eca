// The ceilings of bench/upload: what the smallest Node HTTP servers reach on this machine, as
// their own process, next to Coffer.
//   node bench/upload/ceiling-server.mjs <port> discard         PUT body read and dropped (no disk)
//   node bench/upload/ceiling-server.mjs <port> file <dir>      PUT body → pipeline → file, fsync, rename
//   node bench/upload/ceiling-server.mjs <port> tus             a tus server that drops the bytes
//                                                               (the ceiling of tus-js-client itself)
import { createWriteStream } from 'node:fs';
import { open, rename } from 'node:fs/promises';
import http from 'node:http';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';

const [port, mode, dir] = process.argv.slice(2);
let seq = 0;
const uploads = new Map(); // tus: id → { length, offset }

async function handle(req, res) {
  if (mode === 'discard') {
    let n = 0;
    req.on('data', (c) => (n += c.length));
    req.on('end', () => res.end(String(n)));
    return;
  }
  if (mode === 'file') {
    const tmp = path.join(dir, `.upload-${++seq}`);
    await pipeline(req, createWriteStream(tmp, { highWaterMark: 1024 * 1024 }));
    const fh = await open(tmp, 'r+');
    await fh.sync();
    await fh.close();
    await rename(tmp, path.join(dir, path.basename(new URL(req.url, 'http://x').pathname)));
    res.end('ok');
    return;
  }
  // tus, bytes dropped
  const headers = { 'Tus-Resumable': '1.0.0' };
  if (req.method === 'POST') {
    const id = String(++seq);
    uploads.set(id, { length: Number(req.headers['upload-length']), offset: 0 });
    res.writeHead(201, { ...headers, Location: `/files/${id}` }).end();
    return;
  }
  const u = uploads.get(req.url.split('/').pop());
  if (!u) return void res.writeHead(404, headers).end();
  if (req.method === 'HEAD') return void res.writeHead(200, { ...headers, 'Upload-Offset': u.offset, 'Upload-Length': u.length }).end();
  req.on('data', (c) => (u.offset += c.length));
  req.on('end', () => res.writeHead(204, { ...headers, 'Upload-Offset': u.offset }).end());
}

http
  .createServer((req, res) => {
    handle(req, res).catch((err) => {
      res.writeHead(500).end(String(err));
    });
  })
  .listen(Number(port), '127.0.0.1', () => process.stdout.write('ready\n'));
