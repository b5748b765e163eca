/**
 * A real OpenID provider (oidc-provider) on 127.0.0.1 for the OIDC sign-in tests, behind a small
 * proxy that can tamper with what passes (the issuer is the proxy's address), and a cookie-keeping
 * walker that plays the browser: Coffer → provider login and consent forms → Coffer's callback.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider from 'oidc-provider';

export const CLIENT = { id: 'coffer', secret: 'coffer-test-secret-0123456789' };

export interface Account {
  preferred_username?: string;
  email?: string;
  email_verified?: boolean;
  groups?: string[];
}

/** What the proxy changes: the nonce of the authorization request, or the ID token of the token answer. */
export type Tamper = 'none' | 'nonce' | 'id-token';

export interface TestProvider {
  issuer: string;
  accounts: Map<string, Account>;
  tamper: Tamper;
  close(): Promise<void>;
}

function listen(server: http.Server): Promise<number> {
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)));
}

/** Changes the ID token's payload and keeps its signature: `preferred_username` becomes `admin`. */
function tamperIdToken(body: string): string {
  const json = JSON.parse(body) as { id_token?: string };
  if (!json.id_token) return body;
  const [h, p, s] = json.id_token.split('.');
  const payload = JSON.parse(Buffer.from(p!, 'base64url').toString()) as Record<string, unknown>;
  payload.preferred_username = 'admin';
  json.id_token = `${h}.${Buffer.from(JSON.stringify(payload)).toString('base64url')}.${s}`;
  return JSON.stringify(json);
}

export async function startProvider(redirectUris: string[]): Promise<TestProvider> {
  const front = http.createServer();
  const frontPort = await listen(front);
  const issuer = `http://127.0.0.1:${frontPort}`;
  const accounts = new Map<string, Account>();
  const provider = new Provider(issuer, {
    clients: [{ client_id: CLIENT.id, client_secret: CLIENT.secret, redirect_uris: redirectUris, response_types: ['code'], grant_types: ['authorization_code'] }],
    claims: { openid: ['sub'], profile: ['preferred_username'], email: ['email', 'email_verified'], groups: ['groups'] },
    scopes: ['openid', 'profile', 'email', 'groups'],
    findAccount: (_ctx, id) => ({ accountId: id, claims: () => ({ sub: id, ...(accounts.get(id) ?? { preferred_username: id }) }) }),
    features: { devInteractions: { enabled: true } },
    cookies: { keys: ['oidc-test-cookie-key'] },
  });
  const back = http.createServer(provider.callback());
  const backPort = await listen(back);
  const state: TestProvider = {
    issuer,
    accounts,
    tamper: 'none',
    async close() {
      front.closeAllConnections();
      back.closeAllConnections();
      await Promise.all([new Promise((r) => front.close(r)), new Promise((r) => back.close(r))]);
    },
  };
  front.on('request', (req, res) => {
    let path = req.url ?? '/';
    if (state.tamper === 'nonce' && path.startsWith('/auth?')) {
      const u = new URL(path, issuer);
      u.searchParams.set('nonce', 'a-nonce-the-client-never-made');
      path = `${u.pathname}${u.search}`;
    }
    const up = http.request({ host: '127.0.0.1', port: backPort, method: req.method, path, headers: req.headers }, (upRes) => {
      if (state.tamper === 'id-token' && path === '/token') {
        const chunks: Buffer[] = [];
        upRes.on('data', (c: Buffer) => chunks.push(c));
        upRes.on('end', () => {
          const body = tamperIdToken(Buffer.concat(chunks).toString());
          const headers = { ...upRes.headers, 'content-length': String(Buffer.byteLength(body)) };
          res.writeHead(upRes.statusCode ?? 500, headers).end(body);
        });
        return;
      }
      res.writeHead(upRes.statusCode ?? 500, upRes.headers);
      upRes.pipe(res);
    });
    up.on('error', () => res.writeHead(502).end());
    req.pipe(up);
  });
  return state;
}

/** Cookies by name, sent where their path matches (ports do not separate cookies, as in browsers). */
class Jar {
  private cookies = new Map<string, { value: string; path: string }>();
  take(res: Response): void {
    for (const line of res.headers.getSetCookie()) {
      const [pair, ...attrs] = line.split(';');
      const eq = pair!.indexOf('=');
      const name = pair!.slice(0, eq).trim();
      const value = pair!.slice(eq + 1).trim();
      const path = attrs.map((a) => a.trim()).find((a) => a.toLowerCase().startsWith('path='))?.slice(5) ?? '/';
      const gone = attrs.some((a) => /^\s*max-age=0$/i.test(a)) || attrs.some((a) => /^\s*expires=thu, 01 jan 1970/i.test(a));
      const key = `${name} ${path}`;
      if (gone || value === '') this.cookies.delete(key);
      else this.cookies.set(key, { value, path });
    }
  }
  header(url: string): string {
    const p = new URL(url).pathname;
    return [...this.cookies.entries()]
      .filter(([, c]) => p.startsWith(c.path))
      .map(([k, c]) => `${k.split(' ')[0]}=${c.value}`)
      .join('; ');
  }
  has(name: string): boolean {
    return [...this.cookies.keys()].some((k) => k.startsWith(`${name} `));
  }
}

export interface Walk {
  /** Where the last answer sent the browser (the login page of Coffer, normally). */
  location: string;
  jar: Jar;
  /** Every URL the browser asked for, in order. */
  visited: string[];
  get(url: string, init?: RequestInit): Promise<Response>;
}

function formOf(html: string, base: string): { action: string; fields: Record<string, string> } | null {
  const form = /<form[^>]*action="([^"]+)"[^>]*>([\s\S]*?)<\/form>/.exec(html);
  if (!form) return null;
  const fields: Record<string, string> = {};
  for (const m of form[2]!.matchAll(/<input[^>]*name="([^"]+)"(?:[^>]*value="([^"]*)")?/g)) fields[m[1]!] = m[2] ?? '';
  return { action: new URL(form[1]!.replace(/&amp;/g, '&'), base).href, fields };
}

/**
 * Plays the browser from `start` until an answer sends it to `stopAt` (a URL prefix): follows
 * redirects, signs in at the provider as `login` and consents. `beforeCallback` may change the URL
 * the provider sends the browser back to.
 */
export async function walk(
  start: string,
  opts: { login: string; stopAt: string; jar?: Jar; headers?: Record<string, string>; beforeCallback?: (url: string) => string },
): Promise<Walk> {
  const jar = opts.jar ?? new Jar();
  const visited: string[] = [];
  const get = async (url: string, init: RequestInit = {}) => {
    visited.push(url);
    const headers = new Headers(init.headers);
    const cookie = jar.header(url);
    if (cookie) headers.set('cookie', cookie);
    const res = await fetch(url, { ...init, headers, redirect: 'manual' });
    jar.take(res);
    return res;
  };
  let url = start;
  let init: RequestInit = { headers: opts.headers };
  for (let i = 0; i < 20; i++) {
    const res = await get(url, init);
    init = {};
    const loc = res.headers.get('location');
    if (loc) {
      let next = new URL(loc, url).href;
      if (next.startsWith(opts.stopAt)) return { location: loc, jar, visited, get };
      if (opts.beforeCallback && next.includes('/api/oidc/callback')) next = opts.beforeCallback(next);
      url = next;
      continue;
    }
    const form = formOf(await res.text(), url);
    if (!form) throw new Error(`stuck at ${url}: ${res.status}`);
    const fields = { ...form.fields, login: opts.login, password: 'any' };
    if (form.fields.prompt !== 'login') delete (fields as Partial<typeof fields>).login;
    url = form.action;
    init = { method: 'POST', body: new URLSearchParams(fields), headers: { 'content-type': 'application/x-www-form-urlencoded' } };
  }
  throw new Error('too many steps');
}
