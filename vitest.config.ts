import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'test/**/*.test.tsx'],
    testTimeout: 20_000,
    hookTimeout: 20_000,
    // Two cores: forks keep native better-sqlite3 handles isolated per file.
    pool: 'forks',
    globalSetup: ['test/global-setup.ts'],
  },
});
