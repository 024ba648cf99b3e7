import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  GENERATED_FILES,
  generateSdkFiles,
  loadOpenApiDocument,
  methodName,
  type OpenApiDocument,
} from '../scripts/generate';
import { OPERATIONS, type OperationName } from '../src/operations';
import { PAGINATION, type PageSpec } from '../src/pagination';

const PACKAGE = resolve(import.meta.dirname, '..');

describe('the generated sources', () => {
  it('are what `pnpm --filter @cg/sdk generate` writes from the API’s document', async () => {
    const generated = await generateSdkFiles();
    for (const file of GENERATED_FILES) {
      const committed = readFileSync(resolve(PACKAGE, file), 'utf8');
      expect(
        committed === generated[file],
        `packages/sdk/${file} is out of date with the API: run \`pnpm --filter @cg/sdk generate\` and commit the result`,
      ).toBe(true);
    }
  });
});

interface Schema {
  type?: string | string[];
  properties?: Record<string, Schema>;
  anyOf?: Schema[];
  $ref?: string;
}
interface Operation {
  operationId?: string;
  parameters?: { in: string; name: string }[];
  responses: Record<string, { content?: Record<string, { schema: Schema }> }>;
}

let doc: OpenApiDocument;
/** Every operation of the document by its method name. */
const operations = new Map<string, Operation>();

beforeAll(async () => {
  ({ doc } = await loadOpenApiDocument());
  for (const item of Object.values(doc.paths))
    for (const operation of Object.values(item as Record<string, Operation>))
      if (operation.operationId) operations.set(methodName(operation.operationId), operation);
});

/** The schema at `path` in an operation's success answer, following $refs and nullable unions. */
function schemaAt(operation: Operation, path: readonly string[]): Schema | undefined {
  const success = operation.responses['200'] ?? operation.responses['201'];
  let schema: Schema | undefined = success?.content?.['application/json']?.schema;
  for (const step of path) {
    schema = resolved(schema);
    schema =
      schema?.properties?.[step] ??
      schema?.anyOf?.map(resolved).find((s) => s?.properties?.[step])?.properties?.[step];
  }
  return resolved(schema);
}

function resolved(schema: Schema | undefined): Schema | undefined {
  let here = schema;
  while (here?.$ref) {
    const name = here.$ref.split('/').pop() ?? '';
    here = (doc.components as { schemas: Record<string, Schema> }).schemas[name];
  }
  return here;
}

/** The JSON types a schema allows (a nullable union's members included). */
function typesOf(schema: Schema | undefined): string[] {
  if (!schema) return [];
  if (schema.anyOf) return schema.anyOf.flatMap((member) => typesOf(resolved(member)));
  return Array.isArray(schema.type) ? schema.type : schema.type ? [schema.type] : [];
}

describe('the pagination map', () => {
  it('reads the operations the client has', () => {
    for (const name of Object.keys(OPERATIONS)) expect(operations.has(name), name).toBe(true);
  });

  it('has an entry for every operation that takes a cursor or an offset, and for no other', () => {
    const paged = [...operations]
      .filter(([, operation]) =>
        (operation.parameters ?? []).some(
          (p) => p.in === 'query' && (p.name === 'cursor' || p.name === 'offset'),
        ),
      )
      .map(([name]) => name)
      .sort();
    expect(paged).toEqual(Object.keys(PAGINATION).sort());
  });

  it('names fields the answers have: an array of items, a cursor string (or null), a numeric total', () => {
    for (const [name, spec] of Object.entries(PAGINATION) as [OperationName, PageSpec][]) {
      const operation = operations.get(name);
      if (!operation) throw new Error(`${name} is not in the document`);
      expect(typesOf(schemaAt(operation, spec.items)), `${name} items`).toEqual(['array']);
      if ('cursor' in spec) {
        expect(typesOf(schemaAt(operation, spec.cursor)), `${name} cursor`).toContain('string');
        expect(
          (operation.parameters ?? []).some((p) => p.in === 'query' && p.name === 'cursor'),
          `${name} takes cursor`,
        ).toBe(true);
      } else {
        expect(typesOf(schemaAt(operation, spec.total)), `${name} total`).toContain('number');
        expect((operation.parameters ?? []).some((p) => p.in === 'query' && p.name === 'offset')).toBe(true);
      }
    }
  });
});
