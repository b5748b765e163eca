/**
 * The API's OpenAPI 3.1 document, generated from the route schemas (@fastify/swagger), served at
 * `GET <base>/api/openapi.json`, and a reference page at `<base>/api/docs` (@fastify/swagger-ui,
 * its files served from the npm package). Both are off with `--disable-api-docs`
 * (docs/api.md §18, "E9 — The API described by the code").
 */
import swagger, { type SwaggerTransformObject } from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance, FastifySchema } from 'fastify';
import { Type, type TSchema } from 'typebox';
import { errors, PUBLIC } from './schemas.js';

/** Where the document and the page are, under the base URL. */
export const OPENAPI_PATH = '/api/openapi.json';
export const DOCS_PATH = '/api/docs';

/**
 * The reference page's policy: its own scripts and styles only, from this server; no inline code,
 * nothing from another origin; it only fetches the document (docs/api.md §1.3, S62).
 */
export const DOCS_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "font-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

const DESCRIPTION = `File Browser 2.x's HTTP API as Coffer serves it, plus Coffer's additions.
The full reference, with the rules where Coffer is stricter than File Browser (S1–S85), is docs/api.md
in the repository.

Sign in with \`POST /api/login\`: the answer is a bare JWT; send it in the \`X-Auth\` header (GET and HEAD
also read the \`auth\` cookie). Errors and empty successes answer File Browser's plain-text status
line, e.g. \`403 Forbidden\\n\`. Paths in URLs are scope paths with each segment percent-encoded.
Every GET under the base URL that no route matches answers the web client's page.`;

/** `/api/raw/*` → `/api/raw/{path}`: the wildcard gets a name the document can use. */
function namedWildcard(url: string, schema: FastifySchema): { url: string; schema: FastifySchema } {
  if (!/[:*]/.test(url)) {
    const { params: _none, ...rest } = schema; // the bare prefix of a wildcard route: no path parameter
    return { url, schema: rest };
  }
  if (!url.endsWith('*')) return { url, schema };
  const params = schema.params as { properties?: Record<string, TSchema>; required?: string[] } | undefined;
  const props = params?.properties ?? {};
  const renamed: Record<string, TSchema> = {};
  for (const [k, v] of Object.entries(props)) renamed[k === '*' ? 'path' : k] = v;
  renamed.path ??= Type.String();
  return { url: url.slice(0, -1) + '{path}', schema: { ...schema, params: Type.Object(renamed) } };
}

/** The methods an OpenAPI 3.1 Path Item may hold; WebDAV's others (PROPFIND, MKCOL…) may not. */
const PATH_ITEM_METHODS = new Set(['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace']);
type OpenApiShape = { paths?: Record<string, Record<string, unknown>> };

/**
 * OpenAPI 3.1 cannot name methods outside its list; 3.2 puts them in `additionalOperations`, keyed
 * by the method as sent. Until the document moves to 3.2 they go there under the extension name
 * `x-additionalOperations`, so the document stays valid 3.1 and still describes every route.
 */
export function additionalOperations<T extends OpenApiShape>(doc: T): T {
  for (const item of Object.values(doc.paths ?? {})) {
    for (const key of Object.keys(item)) {
      if (PATH_ITEM_METHODS.has(key) || key.startsWith('x-') || key === 'parameters' || key === 'summary' || key === 'description' || key === 'servers') continue;
      const extra = (item['x-additionalOperations'] ??= {}) as Record<string, unknown>;
      extra[key.toUpperCase()] = item[key];
      delete item[key];
    }
  }
  return doc;
}

export async function registerOpenApi(
  app: FastifyInstance,
  opts: { base: string; version: string },
): Promise<void> {
  const { base, version } = opts;
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Coffer HTTP API',
        version,
        description: DESCRIPTION,
        license: { name: 'MIT', identifier: 'MIT' },
      },
      components: {
        securitySchemes: {
          XAuth: {
            type: 'apiKey',
            in: 'header',
            name: 'X-Auth',
            description: 'the JWT from POST /api/login (docs/api.md §2.2), or an app password, which may also come as `Authorization: Bearer` (docs/api.md §2.10)',
          },
          AuthCookie: {
            type: 'apiKey',
            in: 'cookie',
            name: 'auth',
            description: 'the same JWT as a cookie; read for GET and HEAD only (S26)',
          },
          DavBasic: {
            type: 'http',
            scheme: 'basic',
            description: "WebDAV only: the user name and password (docs/api.md §21); 401 carries WWW-Authenticate: Basic realm=\"Coffer\"",
          },
          MetricsBearer: {
            type: 'http',
            scheme: 'bearer',
            description: 'the --metrics-token; without one, /metrics answers loopback callers only (E3)',
          },
        },
      },
      tags: [
        { name: 'auth', description: 'signing in and sessions (docs/api.md §2)' },
        { name: 'users', description: 'docs/api.md §3' },
        { name: 'settings', description: 'docs/api.md §4' },
        { name: 'page', description: 'static files of the web client (docs/api.md §5)' },
        { name: 'resources', description: 'listing, reading, writing (docs/api.md §7)' },
        { name: 'raw', description: 'file bytes and archives (docs/api.md §8)' },
        { name: 'preview', description: 'images, subtitles (docs/api.md §9, §10)' },
        { name: 'usage', description: 'docs/api.md §11' },
        { name: 'search', description: 'docs/api.md §12' },
        { name: 'tus', description: 'resumable uploads (docs/api.md §13)' },
        { name: 'shares', description: 'docs/api.md §14' },
        { name: 'public', description: 'public access to shares (docs/api.md §15)' },
        { name: 'command', description: 'the command socket (docs/api.md §16)' },
        { name: 'webdav', description: 'the files over WebDAV at /dav/ (docs/api.md §21, docs/webdav.md)' },
        { name: 'operations', description: 'health, readiness, metrics, this document (docs/api.md §17)' },
      ],
    },
    // Paths keep the base URL: the document describes this server as it is mounted.
    stripBasePath: false,
    // @fastify/websocket hides its routes; the command socket is part of the API all the same.
    transformObject: (d) => additionalOperations(('openapiObject' in d ? d.openapiObject : d.swaggerObject) as OpenApiShape) as ReturnType<SwaggerTransformObject>,
    transform: ({ schema, url, route }) => {
      const documented = { ...schema, ...(route.websocket ? { hide: false } : {}) };
      if (route.config?.documentedBody) documented.body = route.config.documentedBody;
      return namedWildcard(url, documented);
    },
  });

  app.get(
    `${base}${OPENAPI_PATH}`,
    {
      schema: {
        tags: ['operations'],
        summary: 'This document (OpenAPI 3.1)',
        security: PUBLIC,
        response: {
          200: Type.Object({}, { additionalProperties: true, description: 'the OpenAPI document' }),
          ...errors(),
        },
      },
      serializerCompiler: () => (data: unknown) => JSON.stringify(data),
    },
    async () => app.swagger(),
  );

  await app.register(swaggerUi, {
    routePrefix: `${base}${DOCS_PATH}`,
    staticCSP: DOCS_CSP,
    // BaseLayout: no top bar (its logo and its box to load other documents mean nothing here).
    uiConfig: { deepLinking: true, defaultModelsExpandDepth: 0, layout: 'BaseLayout' },
    validatorUrl: false,
  });
}
