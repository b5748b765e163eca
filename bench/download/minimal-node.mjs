// The reference: the smallest reasonable Node file server (stat + createReadStream + pipeline).
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import http from 'node:http';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';

const [root, port] = process.argv.slice(2);
http
  .createServer(async (req, res) => {
    const file = path.join(root, decodeURIComponent(new URL(req.url, 'http://x').pathname));
    try {
      const st = await stat(file);
      if (!st.isFile()) {
        res.writeHead(200).end();
        return;
      }
      res.writeHead(200, { 'Content-Length': st.size, 'Content-Type': 'application/octet-stream' });
      await pipeline(createReadStream(file), res);
    } catch {
      if (!res.headersSent) res.writeHead(404).end();
    }
  })
  .listen(Number(port), '127.0.0.1');
