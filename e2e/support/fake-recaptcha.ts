/**
 * A stand-in for the outside world's captcha service (the only fake in e2e): serves an api.js
 * that renders a checkbox through the same explicit-render API, and a siteverify endpoint that
 * accepts exactly the token that checkbox produces.
 */
import { createServer, type Server } from 'node:http';

export const CAPTCHA_TOKEN = 'fake-captcha-ok';

const API_JS = `
window.grecaptcha = {
  render(el, opts) {
    const label = document.createElement('label');
    const box = document.createElement('input');
    box.type = 'checkbox';
    box.dataset.sitekey = opts.sitekey;
    label.append(box, ' I am not a robot');
    el.append(label);
    this._box = box;
    return 0;
  },
  getResponse() { return this._box && this._box.checked ? ${JSON.stringify(CAPTCHA_TOKEN)} : ''; },
  reset() { if (this._box) this._box.checked = false; },
};
`;

export async function startFakeRecaptcha(): Promise<{
  origin: string;
  verified: string[];
  stop(): Promise<void>;
}> {
  const verified: string[] = [];
  const server: Server = createServer((req, res) => {
    if (req.url?.startsWith('/recaptcha/api.js')) {
      res.writeHead(200, { 'Content-Type': 'application/javascript' }).end(API_JS);
      return;
    }
    if (req.url === '/recaptcha/api/siteverify' && req.method === 'POST') {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        const response = new URLSearchParams(body).get('response') ?? '';
        verified.push(response);
        res
          .writeHead(200, { 'Content-Type': 'application/json' })
          .end(JSON.stringify({ success: response === CAPTCHA_TOKEN }));
      });
      return;
    }
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    origin: `http://127.0.0.1:${port}`,
    verified,
    stop: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
