import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    environment: 'node',
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Hermetic model discovery: the models a developer fetched into models/local (or keeps in
    // ~/.manualdesk/models) must not change what the tests see; tests that use the real models name their folder.
    env: { MANUALDESK_MODELS_ONLY: '1' },
  },
});
