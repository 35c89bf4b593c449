// Jest runs in ESM mode (@kubernetes/client-node >= 1 is ESM-only). TypeScript is transformed by
// SWC for speed; type checking is `npm run typecheck`'s job, not the test runner's.
const swc = [
  '@swc/jest',
  {
    jsc: {
      parser: { syntax: 'typescript', decorators: true },
      transform: { legacyDecorator: true, decoratorMetadata: false },
      target: 'es2023',
    },
    module: { type: 'es6' },
    sourceMaps: 'inline',
  },
];

const shared = {
  extensionsToTreatAsEsm: ['.ts'],
  transform: { '^.+\\.ts$': swc },
  // Sources import './x.js' (NodeNext); point those at the .ts files.
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  testEnvironment: 'node',
  // Scratch space of test runs and local clusters (etcd data has *.snap files Jest would take
  // for obsolete snapshots).
  modulePathIgnorePatterns: ['<rootDir>/test/\\.tmp/', '<rootDir>/\\.k8s/'],
  testPathIgnorePatterns: ['/node_modules/', '<rootDir>/test/\\.tmp/', '<rootDir>/\\.k8s/'],
};

export default {
  projects: [
    { ...shared, displayName: 'unit', testMatch: ['<rootDir>/test/unit/**/*.test.ts'] },
    { ...shared, displayName: 'contract', testMatch: ['<rootDir>/test/contract/**/*.test.ts'] },
    {
      ...shared,
      displayName: 'integration',
      testMatch: ['<rootDir>/test/integration/**/*.test.ts'],
      globalSetup: '<rootDir>/test/integration/global-setup.js',
      globalTeardown: '<rootDir>/test/integration/global-teardown.js',
      // testTimeout is not a per-project option; this setup file raises it for integration only.
      setupFilesAfterEnv: ['<rootDir>/test/integration/setup-timeout.ts'],
    },
  ],
};
