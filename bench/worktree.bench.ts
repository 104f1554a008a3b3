// Worktree isolation cost (DESIGN §17): for a 5,000-file repository, the time to give a
// sub-agent its own worktree (base commit from the working tree with an uncommitted change,
// `git worktree add`, links) and to merge its one-file change back into the parent's working
// tree, against a bare `git worktree add` of the same repository in the same run. Median of 5.
// "Result ready" is what the parent waits for; the folder is removed after it, in the
// background, and "with removal" counts that too. Two layouts of the same files: packed, as
// any cloned or garbage-collected repository is, and every object loose, as right after the
// first `git add` of a new project (git then opens and inflates one file per blob, which is
// what makes a checkout slow, for git itself as much as for us). Two shapes of child: one that
// ends the moment it starts, and one that works for 2.5 s first, as any child waiting on a
// model does; for the second, the time counted is create + merge back, not the child's work
// (the index refresh that makes its commit cheap happens during that work; see warm-index.ts).
// The workspaces use the default pool (worktree-pool.ts): from the second round on, a child's
// worktree is made from a finished child's files, so "create" writes only what differs.
import { execFileSync } from 'node:child_process';
import { appendFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Workspaces } from '../src/core/workspace/worktree.js';
import { figure, median } from './support.js';

const FILES = 5_000;
const RUNS = Number(process.env.BENCH_RUNS ?? 5);
/** What a child that waits on a model spends between its start and its end, at the least. */
const CHILD_WORK_MS = 2_500;

const dir = mkdtempSync(join(tmpdir(), 'oci-bench-worktree-'));
const project = join(dir, 'project');
const git = (cwd: string, ...args: string[]) => execFileSync('git', ['-c', 'user.name=b', '-c', 'user.email=b@b', ...args], { cwd, stdio: 'pipe' });

try {
  mkdirSync(project);
  git(project, 'init', '-q');
  for (let i = 0; i < FILES; i++) {
    const folder = join(project, `src/d${i % 50}`);
    mkdirSync(folder, { recursive: true });
    writeFileSync(join(folder, `f${i}.ts`), `export const value${i} = ${i};\n// line two\n// line three\n`);
  }
  git(project, 'add', '-A');
  git(project, 'commit', '-qm', 'init');
  // The parent has work in progress, as it would when it starts children.
  appendFileSync(join(project, 'src/d0/f0.ts'), '// uncommitted\n');
  const workspaces = new Workspaces(join(dir, 'data', 'worktrees'));
  await measure('every object loose (a fresh `git add`)', workspaces);
  git(project, 'repack', '-adq');
  await measure('packed (cloned or after `git gc`)', workspaces);
} finally {
  rmSync(dir, { recursive: true, force: true });
}

async function measure(layout: string, workspaces: Workspaces): Promise<void> {

  const bare: number[] = [];
  const ready: number[] = [];
  const total: number[] = [];
  const working: number[] = [];
  for (let run = 0; run <= RUNS; run++) {
    const path = join(dir, `bare-${run}`);
    // Each round deletes 5,000 files; flush that first so it does not slow the next timing.
    execFileSync('sync');
    let start = performance.now();
    git(project, 'worktree', 'add', '-q', '--detach', path, 'HEAD');
    const bareMs = performance.now() - start;
    git(project, 'worktree', 'remove', '--force', path);
    execFileSync('sync');

    start = performance.now();
    const wt = await workspaces.create(project, `ses_bench${layout.length}_${run}`, ['node_modules']);
    appendFileSync(join(wt.path, `src/d1/f${run + 1}.ts`), `// child ${layout} ${run}\n`);
    const outcome = await workspaces.finish(wt, 'merge');
    const readyMs = performance.now() - start;
    await workspaces.settled();
    const totalMs = performance.now() - start;
    if (outcome.state !== 'merged') throw new Error(`expected a merge, got ${JSON.stringify(outcome)}`);
    execFileSync('sync');

    start = performance.now();
    const busy = await workspaces.create(project, `ses_bench${layout.length}_busy${run}`, ['node_modules']);
    const createMs = performance.now() - start;
    appendFileSync(join(busy.path, `src/d2/f${run + 2}.ts`), `// busy child ${layout} ${run}\n`);
    await new Promise((resolve) => setTimeout(resolve, CHILD_WORK_MS));
    start = performance.now();
    const busyOutcome = await workspaces.finish(busy, 'merge');
    const busyMs = createMs + performance.now() - start;
    await workspaces.settled();
    if (busyOutcome.state !== 'merged') throw new Error(`expected a merge, got ${JSON.stringify(busyOutcome)}`);
    // The first round warms the file cache and git's code; it is not counted.
    if (run === 0) continue;
    bare.push(bareMs);
    ready.push(readyMs);
    total.push(totalMs);
    working.push(busyMs);
  }
  const b = median(bare);
  const row = (name: string, ms: number) => `| ${name} | ${Math.round(ms)} ms | ${(ms / b).toFixed(2)}× |`;
  console.log(`\n### Worktree isolation, ${FILES} files, ${layout} (median of ${RUNS})\n`);
  console.log('| measure | time | vs bare `git worktree add` |');
  console.log('|---|---|---|');
  console.log(row('bare `git worktree add`', b));
  console.log(row('create + merge back (result ready)', median(ready)));
  if (layout.startsWith('packed')) figure('worktree.ready', median(ready), 'ms');
  console.log(row('create + merge back + folder removed', median(total)));
  console.log(row(`create + merge back, child working ${CHILD_WORK_MS / 1000} s between (not counted)`, median(working)));
}
