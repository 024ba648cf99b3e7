import { allOperations } from '@cg/operations';
import { Validator } from '@seriousme/openapi-schema-validator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStack, type TestStack } from '../support/stack';

let stack: TestStack;
let doc: any;

beforeAll(async () => {
  stack = await startStack({ worker: false });
  doc = await (await fetch(`${stack.apiUrl}/openapi.json`)).json();
});
afterAll(async () => {
  await stack?.stop();
});

/** Fastify's `/:accountId/x` as OpenAPI's `/{accountId}/x`. */
const openApiPath = (path: string) => `/api/fansly${path.replace(/:([A-Za-z]+)/g, '{$1}')}`;

describe('/openapi.json', () => {
  it('is a valid OpenAPI 3.1 document', async () => {
    expect(doc.openapi).toBe('3.1.0');
    const result = await new Validator().validate(doc);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
  });

  it('lists every operation with its request and response schemas', () => {
    for (const op of allOperations) {
      const entry = doc.paths[openApiPath(op.path)]?.[op.method.toLowerCase()];
      expect(entry, `${op.method} ${op.path}`).toBeDefined();
      expect(entry.operationId).toBe(op.name);
      const success = entry.responses[String(op.successStatus)];
      expect(success?.content?.['application/json']?.schema, `${op.name} success schema`).toBeDefined();
      expect(entry.responses['202']?.headers?.location, `${op.name} 202 Location`).toBeDefined();
      expect(
        entry.parameters.some((p: any) => p.in === 'header' && p.name === 'prefer'),
        `${op.name} Prefer`,
      ).toBe(true);
      expect(entry.responses['4XX'] ?? entry.responses['4xx'], `${op.name} errors`).toBeDefined();
      // Writes to an account take an Idempotency-Key; reads and logins do not.
      expect(
        entry.parameters.some((p: any) => p.in === 'header' && p.name === 'idempotency-key'),
        `${op.name} Idempotency-Key`,
      ).toBe(op.write === true && op.session !== 'none');
      for (const [status, response] of Object.entries<any>(entry.responses))
        expect(
          Boolean(response.headers?.['idempotent-replayed']),
          `${op.name} ${status} Idempotent-Replayed`,
        ).toBe(op.write === true && op.session !== 'none');
      if (op.schemas.body)
        expect(entry.requestBody?.content?.['application/json']?.schema, `${op.name} body`).toBeDefined();
      for (const name of Object.keys(op.schemas.querystring?.properties ?? {})) {
        expect(
          entry.parameters.some((p: any) => p.in === 'query' && p.name === name),
          `${op.name} ?${name}`,
        ).toBe(true);
      }
      for (const name of Object.keys(op.schemas.params?.properties ?? {})) {
        expect(
          entry.parameters.some((p: any) => p.in === 'path' && p.name === name),
          `${op.name} {${name}}`,
        ).toBe(true);
      }
    }
  });

  it('carries every operation’s example: on its body and on each path and query parameter it names', () => {
    for (const op of allOperations) {
      const entry = doc.paths[openApiPath(op.path)]?.[op.method.toLowerCase()];
      const { params, query, body } = op.example;
      expect(entry.requestBody?.content?.['application/json']?.example, `${op.name} body example`).toEqual(
        body,
      );
      for (const [where, values] of [
        ['path', params],
        ['query', query],
      ] as const) {
        const documented = Object.fromEntries(
          entry.parameters
            .filter((p: any) => p.in === where && p.example !== undefined)
            .map((p: any) => [p.name, p.example]),
        );
        expect(documented, `${op.name} ${where} examples`).toEqual(values ?? {});
      }
    }
  });

  it('documents every answer of the job status route: 202 while it runs, then the operation’s own', () => {
    const responses = doc.paths['/api/fansly/jobs/{jobId}'].get.responses;
    for (const status of ['202', '2XX', '4XX', '5XX']) expect(responses[status], status).toBeDefined();
    expect(responses['202'].headers?.location).toBeDefined();
  });

  it('documents the cancel route: 200 with the cancelled job, 409 when it has started or finished', () => {
    const cancel = doc.paths['/api/fansly/jobs/{jobId}'].delete;
    expect(cancel.operationId).toBe('job-cancel');
    expect(
      cancel.responses['200'].content['application/json'].schema.properties.data.properties.state.enum,
    ).toEqual(['cancelled']);
    expect(cancel.description).toMatch(/409 JOB_NOT_CANCELLABLE/);
    expect(cancel.description).toMatch(/409 JOB_CANCELLED/);
    expect(cancel.responses['4XX']).toBeDefined();
  });

  it('documents the 5XX of every route (503 while Redis is away) and Retry-After on 429 and 503', () => {
    for (const [path, methods] of Object.entries<any>(doc.paths)) {
      for (const [method, entry] of Object.entries<any>(methods)) {
        const where = `${method.toUpperCase()} ${path}`;
        expect(entry.responses['5XX'], `${where} 5XX`).toBeDefined();
        expect(entry.responses['5XX'].headers?.['retry-after'], `${where} 5XX Retry-After`).toBeDefined();
        expect(entry.responses['4XX'].headers?.['retry-after'], `${where} 4XX Retry-After`).toBeDefined();
      }
    }
  });

  it('declares the x-api-key security scheme', () => {
    expect(doc.components.securitySchemes.apiKey).toEqual({
      type: 'apiKey',
      in: 'header',
      name: 'x-api-key',
    });
  });

  it('serves a docs page', async () => {
    const page = await fetch(`${stack.apiUrl}/docs/`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('<html');
  });
});
