// The figures of issue 36's table, each with its goal, for `node bench/run.mjs all`. A bench
// reports a figure by printing `@figure {"id","value","unit"}` (bench/support.ts figure());
// the runner matches it here by id. `goal` is checked against the value, or against its
// ratio to the machine's `node -e 0` time when `perNode` is set (goals the issue states
// as a ratio, or in milliseconds at a given Node start time).
export const FIGURES = [
  { id: 'fanout.wall', name: 'ten parallel children, wall (warm)', goal: { max: 0.55 * 1000 / 65, perNode: true }, goalText: '≤ 0.55 s where node starts in ≤ 65 ms (≤ 8.5× node)' },
  { id: 'fanout.spread', name: 'same, first-to-last child spread', goal: { max: 15 }, goalText: '≤ 15 ms' },
  { id: 'fanout.rss', name: 'same, peak memory', goal: { max: 80 }, goalText: '≤ 80 MB' },
  { id: 'peers.fanout.ratio', name: 'same, wall against Claude Code\'s in the same run (ours ÷ theirs; skipped without Claude Code)', goal: { max: 0.45 }, goalText: '≤ 0.45×' },
  { id: 'run.wall', name: 'one-reply `run`', goal: { max: 2, perNode: true }, goalText: '≤ 2.0× node' },
  { id: 'snapshot.unchanged', name: 'snapshot of a 5,000-file tree, nothing changed (the checkpoint cost per prompt, off the request path)', goal: { max: 100 }, goalText: '≤ +100 ms' },
  { id: 'writers.added', name: 'ten isolated writers vs not, 5,000-file repo (pool filled by earlier batches)', goal: { max: 1500 }, goalText: '≤ +1.5 s' },
  { id: 'worktree.ready', name: 'one worktree, create + merge back, 5,000 files, packed', goal: null, goalText: '(context for the row above)' },
  { id: 'children.growth', name: '100 vs 10 children in one run, peak RSS growth', goal: { max: 25 }, goalText: '≤ +25 MB' },
  { id: 'sandbox.added', name: 'sandboxed command overhead', goal: { max: 15 }, goalText: '≤ +15 ms' },
  { id: 'command.--help.wall', name: '`--help`', goal: null, goalText: 'loads no engine, store, SQLite or UI (test/cli/command-loads.test.ts)' },
  { id: 'command.sessions.wall', name: '`sessions`', goal: null, goalText: '' },
  { id: 'command.trust.wall', name: '`trust`', goal: null, goalText: '' },
  { id: 'command.acp.wall', name: '`acp` (initialize)', goal: null, goalText: '' },
];

/** The benches `all` runs, in order; `--quick` runs them with fewer repetitions. */
export const ALL_BENCHES = ['commands', 'run-phases', 'fanout', 'peers', 'children-memory', 'sandbox', 'snapshot', 'worktree', 'writers'];
