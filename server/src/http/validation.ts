import { Ajv } from 'ajv';
import type { FastifySchemaCompiler } from 'fastify';

// Bodies are validated strictly (S65: a number for `username` is a 400, never coerced);
// URL parts (params, querystring, headers) are text and are coerced to the declared types.
const strict = new Ajv({ allErrors: false, coerceTypes: false, useDefaults: true, removeAdditional: false, strict: false });
const coercing = new Ajv({ allErrors: false, coerceTypes: 'array', useDefaults: true, removeAdditional: false, strict: false });

export const validatorCompiler: FastifySchemaCompiler<object> = ({ schema, httpPart }) => {
  const ajv = httpPart === 'body' ? strict : coercing;
  return ajv.compile(schema) as ReturnType<FastifySchemaCompiler<object>>;
};
