import { defineConfig } from 'vitest/config';

/**
 * Test files that share their worker's modules with the files run before them (Vitest's
 * `isolate: false`): each file otherwise imports Ink, React, zod and the core's or UI's
 * modules anew, which took longer than most of these files' tests. Only files that render
 * components or call loaders, parsers and single tools belong here: no engine, store, process
 * left running, fake timers, module mocks or process state they do not put back. Everything
 * else stays isolated; a new file in one of the UI folders below shares modules unless it is
 * listed in NEEDS_ISOLATION.
 */
const SHARED_MODULES = [
  'test/ui/{transcript,state,input,keys,dialogs,notify,screens}/**/*.test.{ts,tsx}',
  'test/text/**/*.test.ts',
  'test/permission/{bash-match,rules,control-files}.test.ts',
  'test/config/{jsonc,config}.test.ts',
  'test/context/{units,limits}.test.ts',
  'test/tools/{read,search,write-edit,todo,webfetch,webfetch-normalise,hostile-patterns,index}.test.ts',
  'test/agents/{agents,tools}.test.ts',
  'test/shims/grapheme.test.ts',
  'test/scripts/dist-stamp.test.ts',
];
/** In those folders but isolated: they test module state that other files change. */
const NEEDS_ISOLATION = [
  // Draws markdown before marked has loaded, which it has once another file drew some.
  'test/ui/transcript/markdown-loading.test.tsx',
  // Replaces the timers with fake ones while it runs.
  'test/ui/state/frame-scheduler.test.ts',
];

export default defineConfig({
  test: {
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
    projects: [
      {
        extends: true,
        test: {
          name: 'isolated',
          // Vitest's exclude wins over include, so the exceptions come back in a project of their own.
          include: ['test/**/*.test.ts', 'test/**/*.test.tsx'],
          exclude: SHARED_MODULES,
          // Only files here run the built binary.
          globalSetup: ['test/global-setup.ts'],
        },
      },
      { extends: true, test: { name: 'isolated-exceptions', include: NEEDS_ISOLATION } },
      { extends: true, test: { name: 'shared-modules', include: SHARED_MODULES, exclude: NEEDS_ISOLATION, isolate: false } },
    ],
  },
});
