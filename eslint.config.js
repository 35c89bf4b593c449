// Lint rules, including the dependency rule of the house style:
//   api -> domain <- controller; domain does no I/O; cmd/ never imports server/.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

const noIo = ['node:fs', 'node:fs/*', 'fs', 'node:net', 'node:http', 'node:https', 'node:child_process', 'undici', 'pg', 'mysql2', 'mysql2/*', '@kubernetes/client-node', 'express', 'pino'];

/** A layer may not import the named sibling layers of server/. */
function layer(dir, banned, message) {
  return [{
    files: [`${dir}/**/*.ts`],
    ignores: dir === 'server/api' ? ['server/api/generated/**'] : [],
    rules: {
      'no-restricted-imports': ['error', { patterns: [{ group: banned.map((name) => `**/${name}/**`), message }] }],
    },
  }];
}

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
    // The dashboard runs in the browser and reaches the API only through the generated client.
    files: ['web/src/**/*.ts', 'web/src/**/*.tsx'],
    languageOptions: { globals: { window: 'readonly', document: 'readonly', location: 'readonly' } },
    rules: {
      'no-restricted-imports': ['error', { patterns: [{ group: ['**/server/**', '**/cmd/**'], message: 'web/ talks to the server only through openapi/client.ts' }] }],
      'no-restricted-globals': ['error', { name: 'fetch', message: 'call the API through the generated client (web/src/api.ts)' }],
    },
  },
  {
    files: ['server/domain/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', {
        paths: noIo.filter((p) => !p.includes('*')),
        patterns: [
          { group: ['**/api/**', '**/engine/**', '**/kube/**', '**/providers/**', '**/checks/**', '**/pdf/**', '**/evidence/**'], message: 'domain/ is pure: it imports no I/O layer' },
          { group: noIo.filter((p) => p.includes('*')), message: 'domain/ is pure: no I/O modules' },
        ],
      }],
      'no-restricted-globals': ['error', { name: 'process', message: 'domain/ is pure; config.ts reads the environment' }],
    },
  },
  // The layer arrows of the README: api -> domain <- controller; controller -> kube, providers,
  // checks, reports, evidence; kube/ is plumbing and imports none of them.
  ...layer('server/api', ['providers', 'checks', 'engine'], 'api/ talks to the engine through its ports (api/ports.ts), not to providers, checks or the controller'),
  ...layer('server/engine', ['api'], 'engine/ does not import the HTTP layer'),
  ...layer('server/kube', ['api', 'pdf', 'checks', 'evidence', 'engine', 'providers'], 'kube/ is plumbing (client, cache, errors): it imports no higher layer'),
  ...layer('server/checks', ['api', 'engine', 'pdf', 'evidence', 'providers'], 'checks/ only probe the sandbox: no other layer'),
  ...layer('server/providers', ['api', 'engine', 'checks', 'pdf', 'evidence'], 'providers/ talk to the backup tools only'),
  ...layer('server/evidence', ['api', 'engine', 'checks', 'providers', 'pdf'], 'evidence/ signs and verifies: no engine or HTTP layer'),
  ...layer('server/pdf', ['api', 'engine', 'checks', 'providers'], 'pdf/ renders documents from domain data'),
  {
    files: ['cmd/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [{ group: ['**/server/**'], message: 'cmd/ shares only generated API types with the server' }] }],
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
