import { defineConfig } from 'vitest/config';

/**
 * Test files that share their worker's modules with the files run before them (Vitest's
 * `isolate: false`): each file otherwise starts a worker of its own and imports Ink, React,
 * zod, the SDKs and the core's or UI's modules anew, which took longer than many of these
 * files' tests (about a second a file, more for those that build an engine and an App).
 * Files here run their code in the test process: components, loaders, parsers, tools, and
 * engines and stores through the harness, each closed by the test that made it. None of them
 * leaves a process or engine running, replaces the timers, mocks or spies on modules, or
 * changes process state (env, cwd, PATH) without putting it back; none tests module state
 * another file may have set (parser warm-up, the sandbox probe's cache, lazy loads). Files
 * that drive the built binary gain little (their imports are light) and stay isolated, where
 * the global setup builds it, as do those that break one of the rules above; a new file in
 * one of the folders below shares modules unless it is listed in NEEDS_ISOLATION.
 */
const SHARED_MODULES = [
  'test/ui/{app,transcript,state,input,keys,dialogs,notify,screens}/**/*.test.{ts,tsx}',
  'test/text/**/*.test.ts',
  'test/checkpoints/{child-diff-tui,child-select-tui,diff-stat,hostile-restore,tui-queued-commands,tui,undo}.test.{ts,tsx}',
  'test/subagents/**/*.test.{ts,tsx}',
  'test/engine/**/*.test.ts',
  'test/context/{caching,limits,tui,units}.test.{ts,tsx}',
  'test/commands/**/*.test.ts',
  'test/hooks/{daemon-hook,engine-hooks,sources}.test.ts',
  'test/images/**/*.test.ts',
  'test/mcp/{engine,http,tui}.test.{ts,tsx}',
  'test/permission/{bash-match,bash-spellings,rules,control-files,engine-control-files,engine-guard-holds,modes,modes-engine}.test.ts',
  'test/provider/{anthropic,fake-server,models,openai-compatible,openai-tree,retry-policy}.test.ts',
  'test/config/{jsonc,config}.test.ts',
  'test/skills/**/*.test.ts',
  'test/store/{store,engine-lease}.test.ts',
  'test/team/task-list.test.ts',
  'test/tools/{read,search,write-edit,todo,webfetch,webfetch-normalise,webfetch-redirects,websearch,hostile-patterns,index}.test.ts',
  'test/tools/{bash,background-shells,escaped-processes,exec-reread,read-huge,regular-file-swap,special-files,stale-write}.test.ts',
  'test/trust/**/*.test.ts',
  'test/workspace/{agent-isolation,isolation,racy-index,task-block-merge,warm-index,worktree-pool}.test.{ts,tsx}',
  'test/agent/**/*.test.ts',
  'test/agents/**/*.test.ts',
  'test/claude-settings/**/*.test.ts',
  'test/acp/{translate,session-activity}.test.ts',
  'test/cli/{pick-session,sessions-list,stdin}.test.ts',
  'test/shims/grapheme.test.ts',
  'test/scripts/dist-stamp.test.ts',
];
/** In those folders but isolated: they test module state that other files change. */
const NEEDS_ISOLATION = [
  // Draws markdown before marked has loaded, which it has once another file drew some.
  'test/ui/transcript/markdown-loading.test.tsx',
  // Replaces the timers with fake ones while it runs.
  'test/ui/state/frame-scheduler.test.ts',
  // Sets the build's parsed built-in agents as a global and reloads the agent modules.
  'test/agents/builtin-cache.test.ts',
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
