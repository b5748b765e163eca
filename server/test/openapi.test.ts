/**
 * The OpenAPI document (docs/api.md E9): valid OpenAPI 3.1 for a real validator, every registered
 * route in it with its schemas, auth requirement and error statuses — and a route added without a
 * schema fails this test, so every new route is born with one.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { RouteOptions } from 'fastify';
import { Validator } from '@seriousme/openapi-schema-validator';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp, type App } from '../src/app.js';
import { defaults, resolveConfig } from '../src/config/load.js';
import type { ServerConfig } from '../src/config/schema.js';
import { DOCS_CSP, DOCS_PATH, OPENAPI_PATH } from '../src/http/openapi.js';
import { createDeps } from '../src/services.js';
import { ADMIN, useServer } from './harness.js';

interface Operation {
  security?: unknown[];
  parameters?: { name: string; in: string }[];
  requestBody?: { content?: Record<string, { schema?: object }> };
  responses: Record<string, unknown>;
}
type OpenApiDocument = { openapi: string; paths: Record<string, Record<string, Operation>> };

/** The document's path of a route: `:id` → `{id}`, a trailing `*` → `{path}` (openapi.ts). */
export function documentPath(url: string): string {
  return url.replace(/:([A-Za-z0-9_]+)/g, '{$1}').replace(/\*$/, '{path}');
}

/**
 * What is missing for each registered route: a schema with its response statuses (an error status
 * among them), an explicit auth requirement, path parameters, and its operation in the document.
 * Only the reference page's own files (hidden by their plugin) are left out.
 */
export function undocumented(routes: readonly RouteOptions[], doc: OpenApiDocument, base: string): string[] {
  const problems: string[] = [];
  const gets = new Set(routes.filter((r) => r.method === 'GET').map((r) => r.url));
  for (const route of routes) {
    const url = route.url ?? route.path;
    if (url === `${base}${DOCS_PATH}` || url.startsWith(`${base}${DOCS_PATH}/`)) continue;
    for (const method of [route.method].flat()) {
      if (method === 'HEAD' && !Array.isArray(route.method) && gets.has(url)) continue; // Fastify's HEAD for a GET
      const name = `${method} ${url}`;
      const schema = route.schema as
        | { response?: Record<string, unknown>; security?: unknown; params?: unknown; hide?: boolean }
        | undefined;
      if (!schema) {
        problems.push(`${name}: no schema`);
        continue;
      }
      if (schema.hide && !route.websocket) problems.push(`${name}: hidden from the document`); // openapi.ts un-hides sockets
      if (!schema.response) problems.push(`${name}: no response schema`);
      else if (!Object.keys(schema.response).some((code) => Number(code) >= 400))
        problems.push(`${name}: no error status`);
      if (!schema.security) problems.push(`${name}: no auth requirement (security)`);
      if (/[:*]/.test(url) && !schema.params) problems.push(`${name}: no params schema`);
      const item = doc.paths[documentPath(url)] as (Record<string, Operation> & { 'x-additionalOperations'?: Record<string, Operation> }) | undefined;
      const op = item?.[method.toLowerCase()] ?? item?.['x-additionalOperations']?.[method];
      if (!op) problems.push(`${name}: not in the document`);
    }
  }
  return problems;
}

/** The app as main builds it, not listening, with every route it registers collected. */
async function built(over: Partial<ServerConfig> = {}, extra?: (app: App) => void) {
  const dir = await mkdtemp(path.join(tmpdir(), 'coffer-openapi-'));
  const config = resolveConfig(
    {
      ...defaults(),
      root: path.join(dir, 'root'),
      database: path.join(dir, 'coffer.db'),
      port: 0,
      log: '',
      username: ADMIN.username,
      password: ADMIN.password,
      ...over,
    },
    {},
  );
  const { deps } = await createDeps(config, { failureDelayMs: 0 });
  const routes: RouteOptions[] = [];
  const app = await buildApp(deps, { logger: false, onRoute: (r) => void routes.push(r) });
  extra?.(app);
  await app.ready();
  const doc = app.swagger() as unknown as OpenApiDocument;
  return {
    app,
    routes,
    doc,
    async close() {
      await app.close();
      await deps.db.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

describe('GET /api/openapi.json', () => {
  const srv = useServer();

  it('is a valid OpenAPI 3.1 document, without a session', async () => {
    const res = await srv.fetch(OPENAPI_PATH);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    const doc = (await res.json()) as OpenApiDocument;
    expect(doc.openapi).toBe('3.1.0');
    const validator = new Validator();
    const result = await validator.validate(doc as unknown as object);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    // The meta-schema accepts any schema object: compile each one as JSON Schema 2020-12, and match
    // every path template with its path parameters.
    const ajv = new Ajv2020({ strict: false, validateFormats: false });
    const bad: string[] = [];
    for (const [p, item] of Object.entries(doc.paths)) {
      const templated = [...p.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]).sort();
      // WebDAV's methods sit under x-additionalOperations (openapi.ts), checked the same way.
      const { 'x-additionalOperations': extra, ...standard } = item as Record<string, Operation> & { 'x-additionalOperations'?: Record<string, Operation> };
      for (const [method, op] of [...Object.entries(standard), ...Object.entries(extra ?? {})]) {
        const inPath = (op.parameters ?? [])
          .filter((x) => x.in === 'path')
          .map((x) => x.name)
          .sort();
        if (JSON.stringify(inPath) !== JSON.stringify(templated))
          bad.push(`${method} ${p}: path parameters ${inPath.join()}`);
        const schemas = [
          ...(op.parameters ?? []).map((x) => (x as { schema?: object }).schema),
          ...Object.values(op.requestBody?.content ?? {}).map((m) => m.schema),
          ...Object.values(op.responses).flatMap((r) =>
            Object.values((r as { content?: Record<string, { schema?: object }> }).content ?? {}).map(
              (m) => m.schema,
            ),
          ),
        ];
        for (const schema of schemas) {
          if (!schema) continue;
          try {
            ajv.compile(schema);
          } catch (err) {
            bad.push(`${method} ${p}: ${(err as Error).message}`);
          }
        }
      }
    }
    expect(bad).toEqual([]);
  });

  it('declares the X-Auth header and the auth cookie, and which routes need them', async () => {
    const doc = (await (await srv.fetch(OPENAPI_PATH)).json()) as OpenApiDocument & {
      components: { securitySchemes: Record<string, { in?: string; name?: string }> };
    };
    expect(doc.components.securitySchemes.XAuth).toMatchObject({ in: 'header', name: 'X-Auth' });
    expect(doc.components.securitySchemes.AuthCookie).toMatchObject({ in: 'cookie', name: 'auth' });
    expect(doc.paths['/api/users']!.get!.security).toEqual([{ XAuth: [] }, { AuthCookie: [] }]);
    expect(doc.paths['/api/login']!.post!.security).toEqual([]);
  });
});

describe('every route is in the document', () => {
  let app: Awaited<ReturnType<typeof built>>;
  beforeAll(async () => {
    app = await built();
  });
  afterAll(async () => app?.close());

  it('with its schemas, auth requirement and error statuses', () => {
    expect(app.routes.length).toBeGreaterThan(30);
    expect(undocumented(app.routes, app.doc, '')).toEqual([]);
  });

  it('and under a base URL, at the prefixed paths', async () => {
    const prefixed = await built({ baseURL: '/coffer' });
    try {
      expect(undocumented(prefixed.routes, prefixed.doc, '/coffer')).toEqual([]);
      expect(Object.keys(prefixed.doc.paths)).toContain('/coffer/api/resources/{path}');
      const res = await prefixed.app.inject({ url: `/coffer${OPENAPI_PATH}` });
      expect(res.statusCode).toBe(200);
    } finally {
      await prefixed.close();
    }
  });

  it('fails for a route registered without a schema', async () => {
    const extra = await built({}, (a) => {
      a.get('/api/born-without-schema', async () => ({ ok: true }));
    });
    try {
      expect(undocumented(extra.routes, extra.doc, '')).toEqual(
        expect.arrayContaining(['GET /api/born-without-schema: no schema']),
      );
    } finally {
      await extra.close();
    }
  });
});

describe('GET /api/docs', () => {
  const srv = useServer();

  it('serves the reference page and its scripts from the package, under a strict CSP', async () => {
    const res = await srv.fetch(DOCS_PATH);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    expect(res.headers.get('content-security-policy')).toBe(DOCS_CSP);
    const html = await res.text();
    expect(html).not.toMatch(/(?:src|href)="(?:https?:)?\/\//); // nothing from another origin
    const scripts = [...html.matchAll(/<script src="([^"]+)"/g)].map((m) => m[1]!);
    expect(scripts.length).toBeGreaterThan(0);
    for (const src of scripts) {
      const js = await srv.fetch(src.replace(/^\.\//, `${DOCS_PATH}/`));
      expect(js.status).toBe(200);
      expect(js.headers.get('content-security-policy')).toBe(DOCS_CSP);
    }
  });
});

describe('--disable-api-docs', () => {
  const srv = useServer({ disableApiDocs: true });

  it('answers 404 for the document and the page', async () => {
    expect((await srv.fetch(OPENAPI_PATH)).status).toBe(404);
    expect((await srv.fetch(DOCS_PATH)).status).toBe(404);
    expect((await srv.fetch(`${DOCS_PATH}/static/swagger-ui-bundle.js`)).status).toBe(404);
  });
});
