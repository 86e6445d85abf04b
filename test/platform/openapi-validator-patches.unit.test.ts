// The patches to express-openapi-validator (openapi-validator-patches.ts) change what it costs,
// not what it decides: its preprocessor gets the document's own schema for a reference (escaped
// pointers included) without compiling it, the OpenAPI meta-schema is compiled only when a
// document is to be checked and still refuses an invalid one, and a body that breaks a referenced
// schema is still refused by the real validator; and api.yaml is one that bundling leaves as it
// is, which is what lets the validator take it without bundling.
import $RefParser from '@apidevtools/json-schema-ref-parser';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import express from 'express';
import schemaValidatorModule from 'express-openapi-validator/dist/framework/openapi.schema.validator.js';
import preprocessorModule from 'express-openapi-validator/dist/middlewares/parsers/schema.preprocessor.js';
import { loadApiDocument, openApiValidator, type OpenApiDocument } from '../../src/platform/http/openapi.js';
import { patchOpenApiValidator } from '../../src/platform/http/openapi-validator-patches.js';
import { problemHandler } from '../../src/platform/http/problem-handler.js';
import { createLogger } from '../../src/platform/logger.js';

const thing = { type: 'object', required: ['size'], additionalProperties: false, properties: { size: { type: 'integer', minimum: 0 } } };
const slashed = { type: 'string', maxLength: 3 };
const DOC = {
  openapi: '3.0.3',
  info: { title: 'test', version: '1' },
  servers: [{ url: '/' }],
  paths: {
    '/things': {
      post: {
        operationId: 'createThing',
        requestBody: { required: true, content: { 'application/json': { schema: { $ref: '#/components/schemas/Thing' } } } },
        responses: { '204': { description: 'made' } },
      },
    },
  },
  components: { schemas: { Thing: thing, 'a/b~c': slashed } },
} as unknown as OpenApiDocument;

beforeAll(() => patchOpenApiValidator());

describe('the schema preprocessor after the patch', () => {
  type Resolver = { resolveSchema(schema: unknown): unknown };
  const { SchemaPreprocessor } = preprocessorModule as unknown as { SchemaPreprocessor: new (doc: unknown, ajv: object, responses: object) => Resolver };
  let preprocessor: Resolver;
  beforeAll(() => {
    preprocessor = new SchemaPreprocessor(structuredClone(DOC), { formats: {} }, {});
  });

  it("answers a reference with the document's own object, also through an escaped pointer", () => {
    const doc = (preprocessor as unknown as { apiDoc: { components: { schemas: Record<string, unknown> } } }).apiDoc;
    expect(preprocessor.resolveSchema({ $ref: '#/components/schemas/Thing' })).toBe(doc.components.schemas.Thing);
    expect(preprocessor.resolveSchema({ $ref: '#/components/schemas/a~1b~0c' })).toBe(doc.components.schemas['a/b~c']);
    expect(preprocessor.resolveSchema({ $ref: '#/components/schemas/Nothing' })).toBeUndefined();
  });

  it('answers a schema without a reference with itself, and nothing with null', () => {
    expect(preprocessor.resolveSchema(thing)).toBe(thing);
    expect(preprocessor.resolveSchema(undefined)).toBeNull();
  });
});

it('still refuses an invalid document when one is checked', () => {
  const { OpenAPISchemaValidator } = schemaValidatorModule as unknown as { OpenAPISchemaValidator: new (o: { version: string; validateApiSpec: boolean }) => { validate(doc: unknown): { errors: unknown[] | null } } };
  const check = new OpenAPISchemaValidator({ version: '3.0.3', validateApiSpec: true });
  expect(check.validate(DOC).errors).toEqual([]);
  expect(check.validate({ ...DOC, info: { title: 'no version' } }).errors?.length).toBeGreaterThan(0);
});

it('finds api.yaml unchanged by bundling (all its references are internal)', async () => {
  const doc = loadApiDocument('/inventory');
  const before = structuredClone(doc);
  const bundled = await $RefParser.bundle(doc);
  expect(bundled).toBe(doc);
  expect(bundled).toEqual(before);
});

describe('the real validator with the patches', () => {
  let server: Server;
  let url: string;
  beforeAll(async () => {
    const app = express();
    app.use(express.json());
    app.use(openApiValidator(structuredClone(DOC), { validateResponses: false, contextPath: '' }, []));
    app.post('/things', (_req, res) => {
      res.status(204).end();
    });
    app.use(problemHandler(createLogger('error')));
    server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise((resolve) => server.close(resolve)));

  const post = (body: unknown) => fetch(`${url}/things`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

  it('takes a body that its referenced schema allows', async () => {
    expect((await post({ size: 3 })).status).toBe(204);
  });

  it('refuses one that breaks the referenced schema, naming the field', async () => {
    const res = await post({ size: -1, colour: 'red' });
    expect(res.status).toBe(400);
    const problem = (await res.json()) as { errors: { path: string }[] };
    expect(problem.errors.map((e) => e.path).sort()).toEqual(['body.colour', 'body.size']);
  });
});
