import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'test/**/*.test.tsx'],
    // A deadline for a hung test, never waited out when it passes: generous, because with two
    // files running side by side (below) a test's child processes share the cores with the
    // other file's.
    testTimeout: 60_000,
    hookTimeout: 20_000,
    // Two cores: forks keep native better-sqlite3 handles isolated per file.
    pool: 'forks',
    // Vitest's default is one worker fewer than the cores: on two cores the files ran one at
    // a time. Most files spend much of their time waiting (on child processes, the fake API
    // server's scripted delays, tmux), so two run side by side. Longest files start first
    // (Vitest orders by last run's durations), so neither worker is left with a long tail.
    maxWorkers: 2,
    globalSetup: ['test/global-setup.ts'],
  },
});
