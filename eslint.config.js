// Lint rules, including the fences between the folders of server/ (docs/architecture.md draws
// them): every folder states which other folders it may import, a folder without a fence is an
// error, and no module may take part in an import cycle. protocol/ (the formats the plugin and the
// server must agree on) and cmd/ are fenced the same way; cmd/ and web/ never import server/.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import { fencePlugin } from './test/lint/fence-plugin.js';

const root = path.dirname(fileURLToPath(import.meta.url));

// What each part may import besides its own files. Keys are folders (or single files) of server/,
// and the top-level folders of TOP_LEVEL_PARTS; a value names other keys. The longest key that contains a file is its
// part, so server/domain/run/x.ts belongs to 'domain/run', not 'domain'. Read it bottom-up:
// the pure domain first (no I/O at all), then plumbing, then the layers that act, then the
// composition root that wires them.
export const FENCES = {
  // The formats the kubectl plugin and the server must agree on (stored reports, the evidence
  // scheme and its chain, the PDF attestation, the request body of a test, license claims). Neither
  // owns them, so they sit at the top level and import nothing of ours: any part that reads or
  // writes one of these formats lists 'protocol'.
  protocol: [],
  // The pure domain, in layers of its own: common values, resource shapes, a run's life, what a
  // user may write, the read models, and the rules built on them.
  'domain/common': [],
  'domain/resources': ['domain/common', 'protocol'],
  'domain/run': ['domain/common', 'domain/resources', 'protocol'],
  'domain/test-spec': ['domain/common', 'domain/resources', 'domain/run', 'protocol'],
  'domain/read-models': ['domain/common', 'domain/resources', 'domain/run', 'protocol'],
  'domain/compliance': ['domain/common', 'domain/resources', 'domain/run', 'domain/read-models'],
  'domain/notifications': ['domain/common', 'domain/resources', 'domain/read-models'],
  'domain/diagnosis': ['domain/common', 'domain/resources', 'domain/run'],
  'domain/permissions': ['domain/common', 'domain/resources', 'domain/run'],
  'domain/retention': ['domain/common', 'domain/resources', 'domain/read-models', 'protocol'],
  // RestoreTests drafted from what a namespace runs and how it is backed up (issue 32).
  'domain/test-drafts': ['domain/common', 'domain/resources', 'domain/run'],
  // Will a backup restore here: its manifests checked against the cluster (issue 32, decision 0021).
  'domain/preflight': ['domain/common', 'domain/resources', 'domain/run'],
  domain: ['domain/common', 'domain/resources', 'domain/read-models', 'protocol'],
  // Plumbing: how reports are stored, the Kubernetes client and caches, metrics.
  'report-codec': ['domain', 'protocol'],
  kube: ['domain', 'report-codec', 'protocol'],
  metrics: ['domain', 'kube'],
  // What the engine and the API build on.
  evidence: ['domain', 'kube', 'metrics', 'report-codec', 'protocol'],
  license: ['domain', 'kube'],
  providers: ['domain', 'kube'],
  checks: ['domain', 'kube', 'protocol'],
  triage: ['domain', 'kube'],
  notifications: ['domain', 'kube', 'product-version.ts'],
  inventory: ['domain', 'kube', 'providers'],
  archive: ['domain', 'kube', 'evidence', 'config.ts', 'protocol'],
  pdf: ['domain', 'evidence', 'protocol'],
  // The two layers that act: the reconcile loop (leader only) and the HTTP API (every replica).
  engine: ['domain', 'kube', 'metrics', 'providers', 'checks', 'evidence', 'protocol'],
  api: ['domain', 'kube', 'metrics', 'evidence', 'pdf', 'config.ts', 'product-version.ts', 'protocol'],
  // The composition root builds everything; main.ts runs it.
  app: ['*'],
  'main.ts': ['app', 'config.ts', 'logger.ts'],
  'config.ts': ['domain', 'license'],
  'logger.ts': [],
  'product-version.ts': [],
  // The kubectl plugin and the vendor's license tool: the shared formats, never the server.
  cmd: ['protocol'],
};

// The keys of FENCES that are folders at the repository's top level; every other key is in server/.
export const TOP_LEVEL_PARTS = ['protocol', 'cmd'];

const noIo = ['node:fs', 'node:fs/*', 'fs', 'node:net', 'node:http', 'node:https', 'node:child_process', 'node:zlib', 'undici', 'pg', 'mysql2', 'mysql2/*', '@kubernetes/client-node', 'express', 'pino', 'pdfkit', 'prom-client'];

export default tseslint.config(
  { ignores: ['node_modules/**', 'dist/**', 'openapi/**', 'server/api/generated/**', 'cmd/kubectl-restoretest/generated/**', 'coverage/**', '.k8s/**', 'test/.tmp/**', 'web/dist/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    // Plain JavaScript run by Node directly (Jest global setup/teardown, configs).
    files: ['**/*.js', '**/*.mjs'],
    languageOptions: { globals: { process: 'readonly', console: 'readonly', globalThis: 'readonly' } },
  },
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-console': 'off',
    },
  },
  {
    // The fences and the no-cycle rule, over the product's code (tests may import anything).
    files: ['server/**/*.ts', 'cmd/**/*.ts', 'protocol/**/*.ts', 'web/src/**/*.ts', 'web/src/**/*.tsx'],
    plugins: { rehearsal: fencePlugin({ root, fences: FENCES, topLevel: TOP_LEVEL_PARTS }) },
    rules: { 'rehearsal/fence': 'error', 'rehearsal/no-cycle': 'error' },
  },
  {
    files: ['server/domain/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', {
        paths: noIo.filter((p) => !p.includes('*')),
        patterns: [{ group: noIo.filter((p) => p.includes('*')), message: 'domain/ is pure: no I/O modules' }],
      }],
      'no-restricted-globals': ['error', { name: 'process', message: 'domain/ is pure; config.ts reads the environment' }],
    },
  },
  {
    // The dashboard runs in the browser and reaches the API only through the generated client.
    files: ['web/src/**/*.ts', 'web/src/**/*.tsx'],
    languageOptions: { globals: { window: 'readonly', document: 'readonly', location: 'readonly' } },
    rules: {
      'no-restricted-imports': ['error', { patterns: [{ group: ['**/server/**', '**/cmd/**'], message: 'web/ talks to the server only through openapi/client.ts' }] }],
      'no-restricted-globals': ['error', { name: 'fetch', message: 'call the API through the generated client (web/src/api.ts)' }],
    },
  },
  {
    files: ['server/**/*.ts'],
    ignores: ['server/config.ts'],
    rules: {
      'no-restricted-properties': ['error', { object: 'process', property: 'env', message: 'only server/config.ts reads process.env' }],
    },
  },
);

