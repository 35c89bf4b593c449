#!/usr/bin/env node
// Generates the API contract from the tsoa controllers in server/api/ (config: tsoa.json):
//   openapi/openapi.json                 the OpenAPI 3.0 document (committed; served at /openapi.json)
//   server/api/generated/routes.ts       the Express routes tsoa generates (committed)
//   openapi/generated/rehearsal-api.d.ts TypeScript types for clients, by openapi-typescript (committed)
//
//   npm run openapi:generate   writes them
//   npm run openapi:check      regenerates into temporary locations and fails if anything differs
//
// Everything is generated into files, never patched by hand, so the check is a byte comparison.
// One normalization step runs after tsoa: tsoa 6.6 ignores the media type of class-level
// @Response decorators, and every error body is application/problem+json (ProblemDetails), so the
// ProblemDetails responses are moved to that media type. A second one: tsoa describes a Readable
// (the PDF endpoints) as a base64 string (format byte), but the body is the raw file, so a
// non-JSON media type's string schema gets format binary. The JSON is written with two-space
// indentation and a final newline.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { generateSpecAndRoutes } from '@tsoa/cli';
import openapiTS, { astToString } from 'openapi-typescript';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const SPEC = 'openapi/openapi.json';
const ROUTES = 'server/api/generated/routes.ts';
const TYPES = 'openapi/generated/rehearsal-api.d.ts';
const PROBLEM_SCHEMA = '#/components/schemas/ProblemDetails';
const PROBLEM_MEDIA_TYPE = 'application/problem+json';

const TYPES_HEADER = `// Generated from openapi/openapi.json by openapi-typescript (npm run openapi:generate). Do not edit.
// Shared by the server's tests and the kubectl plugin; openapi/client.ts builds a typed client on it.
`;

// tsoa 6.6 validates @uniqueItems at runtime but leaves it out of the schema (its value is
// undefined); these array properties carry the tag.
const UNIQUE_ITEMS = [['CreateTestInput', 'sourceNamespaces']];

/** Every response whose body is a ProblemDetails is served as application/problem+json. */
function normalizeSpec(document) {
  for (const [schema, property] of UNIQUE_ITEMS) {
    const target = document.components?.schemas?.[schema]?.properties?.[property];
    if (!target) throw new Error(`normalizeSpec: ${schema}.${property} not found`);
    target.uniqueItems = true;
  }
  for (const item of Object.values(document.paths ?? {})) {
    for (const operation of Object.values(item)) {
      for (const response of Object.values(operation?.responses ?? {})) {
        const content = response?.content;
        const json = content?.['application/json'];
        if (json?.schema?.$ref === PROBLEM_SCHEMA) {
          delete content['application/json'];
          content[PROBLEM_MEDIA_TYPE] = json;
        }
        for (const [mediaType, media] of Object.entries(content ?? {})) {
          if (!mediaType.includes('json') && media?.schema?.type === 'string' && media.schema.format === 'byte') {
            media.schema.format = 'binary';
          }
        }
      }
    }
  }
  return document;
}

async function generate({ specDir, routesDir }) {
  const config = JSON.parse(readFileSync(join(root, 'tsoa.json'), 'utf8'));
  config.spec.outputDirectory = relative(root, specDir);
  config.routes.routesDir = relative(root, routesDir);
  const cwd = process.cwd();
  process.chdir(root);
  try {
    await generateSpecAndRoutes({ configuration: config });
  } finally {
    process.chdir(cwd);
  }
  const specPath = join(specDir, 'openapi.json');
  const document = normalizeSpec(JSON.parse(readFileSync(specPath, 'utf8')));
  const specText = `${JSON.stringify(document, null, 2)}\n`;
  writeFileSync(specPath, specText);
  // A default is what the server applies to an omitted field: the field stays optional for clients.
  const ast = await openapiTS(document, { rootTypes: true, rootTypesNoSchemaPrefix: false, defaultNonNullable: false });
  return { specText, routesText: readFileSync(join(routesDir, 'routes.ts'), 'utf8'), typesText: TYPES_HEADER + astToString(ast) };
}

function write(path, text) {
  mkdirSync(dirname(join(root, path)), { recursive: true });
  writeFileSync(join(root, path), text);
}

async function main() {
  const mode = process.argv[2] ?? 'generate';
  if (mode === 'generate') {
    const generated = await generate({ specDir: join(root, 'openapi'), routesDir: join(root, 'server/api/generated') });
    write(TYPES, generated.typesText);
    console.log(`wrote ${SPEC}, ${ROUTES}, ${TYPES}`);
    return 0;
  }
  if (mode !== 'check') {
    console.error('usage: generate.mjs [generate|check]');
    return 2;
  }
  // Routes import the controllers by relative path, so they are generated at the same depth as
  // server/api/generated/; the spec and types go to the system's temporary directory.
  const specDir = mkdtempSync(join(tmpdir(), 'rehearsal-openapi-'));
  const routesDir = join(root, 'server/api', `.generated-check-${process.pid}`);
  try {
    const generated = await generate({ specDir, routesDir });
    const stale = [
      [SPEC, generated.specText],
      [ROUTES, generated.routesText],
      [TYPES, generated.typesText],
    ].filter(([path, text]) => !existsSync(join(root, path)) || readFileSync(join(root, path), 'utf8') !== text);
    if (stale.length > 0) {
      console.error('openapi:check: the committed API contract is out of date with the controllers in server/api/:');
      for (const [path] of stale) console.error(`  ${path}`);
      console.error('Run `npm run openapi:generate` and commit the result.');
      return 1;
    }
    console.log(`openapi:check: ${SPEC}, ${ROUTES} and ${TYPES} are up to date`);
    return 0;
  } finally {
    rmSync(specDir, { recursive: true, force: true });
    rmSync(routesDir, { recursive: true, force: true });
  }
}

main().then(
  (code) => process.exit(code),
  (error) => {
    console.error('openapi generation failed:', error?.message ?? error);
    process.exit(1);
  },
);
