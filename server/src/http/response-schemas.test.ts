/**
 * Response schemas are serializers: Fastify writes an object answer in the order of its schema's
 * properties and drops what the schema does not name. These answers must stay byte for byte what
 * JSON.stringify wrote before the schemas existed (issue 18: a refactor, no change on the wire).
 */
import Fastify from 'fastify';
import { PublicResource, Usage, type ResourceItem } from '@coffer/protocol';
import type { TSchema } from 'typebox';
import { describe, expect, it } from 'vitest';
import { errors, InternalError } from './schemas.js';

async function serialized(
  schema: TSchema | Record<string, unknown>,
  body: unknown,
  status = 200,
): Promise<string> {
  const app = Fastify();
  app.get('/', { schema: { response: { [status]: schema } } }, async (_req, reply) =>
    reply.code(status).send(body),
  );
  const res = await app.inject({ url: '/' });
  await app.close();
  expect(res.statusCode).toBe(status);
  return res.body;
}

const item: ResourceItem = {
  path: '/docs/a b.txt',
  name: 'a b.txt',
  size: 4096,
  extension: '.txt',
  modified: '2024-03-01T10:20:30.123456789+01:00',
  mode: 2147484141,
  isDir: false,
  isSymlink: false,
  type: 'text',
};

describe('response schemas write what JSON.stringify wrote', () => {
  it('usage', async () => {
    const body = { total: 1_000_000_000_000, used: 12_345 };
    expect(await serialized(Usage, body)).toBe(JSON.stringify(body));
  });

  it('a public folder, with its items, counts, sorting and token, in that order', async () => {
    const body = {
      ...item,
      path: '/',
      name: 'shared',
      isDir: true,
      type: '',
      items: [item, { ...item, name: 'é"\\\n' }],
      numDirs: 0,
      numFiles: 2,
      sorting: { by: 'name', asc: false },
      token: 'abc',
    };
    expect(await serialized(PublicResource, body)).toBe(JSON.stringify(body));
  });

  it('a public file without a token', async () => {
    const body = { ...item, path: '' };
    expect(await serialized(PublicResource, body)).toBe(JSON.stringify(body));
  });

  it('the body of a 500', async () => {
    const body = { error: 'internal', requestId: 'req-1' };
    expect(await serialized(InternalError, body, 500)).toBe(JSON.stringify(body));
    expect(await serialized(errors()[500] as Record<string, unknown>, body, 500)).toBe(JSON.stringify(body));
  });
});
