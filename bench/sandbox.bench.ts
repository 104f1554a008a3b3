// What the sandbox adds to each command: `true` run through the command runner on the host
// and inside a workspace-write bubblewrap sandbox (the bash tool's two paths), alternating,
// 20 timed runs each after warm-ups; medians compared. Goal: at most 15 ms added per command.
import { mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { commandSandbox, hostRunner, prepareSandbox, type CommandRunner } from '../src/core/sandbox/index.js';
import { figure, fmt, median, tempProject } from './support.js';

const RUNS = process.env.BENCH_QUICK ? 8 : 20;
/** Clock ticks per second of /proc's CPU times (USER_HZ: 100 on Linux). */
const TICKS = 100;

/** CPU ms used by this process's reaped children so far (cutime + cstime of /proc/self/stat). */
function childrenCpuMs(): number {
  const stat = readFileSync('/proc/self/stat', 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(fields[13]) + Number(fields[14])) * 1000) / TICKS;
}
const WARMUPS = 3;
const { dir } = tempProject('oci-bench-sandbox-');
const project = join(dir, 'project');
mkdirSync(join(project, '.git'), { recursive: true });
const env = { HOME: join(dir, 'home'), OPENCODE_INK_DATA_DIR: join(dir, 'data'), OPENCODE_INK_CONFIG_DIR: join(dir, 'config'), PATH: process.env.PATH ?? '' };
const host = prepareSandbox({ config: { mode: 'workspace-write', network: false, allow_write: [], auto_allow: true }, env, cwd: project });

console.log('## Sandbox overhead per command');
if (!host.availability.available) {
  console.log(`Skipped: ${host.availability.reason}.`);
} else {
  const sandbox = commandSandbox(host, host.settings, project);
  if (sandbox?.state !== 'on') throw new Error('the sandbox did not start');
  const plain = hostRunner();
  const once = async (runner: CommandRunner): Promise<number> => {
    const start = performance.now();
    const running = await runner.run('true', { cwd: project, env, signal: new AbortController().signal });
    const exit = await running.exited;
    const elapsed = performance.now() - start;
    running.release();
    if (exit.exitCode !== 0) throw new Error(`true failed in ${runner.description}: ${JSON.stringify(exit)}`);
    return elapsed;
  };
  for (let i = 0; i < WARMUPS; i++) {
    await once(plain);
    await once(sandbox.runner);
  }
  const bare: number[] = [];
  const boxed: number[] = [];
  let bareCpu = 0;
  let boxedCpu = 0;
  for (let i = 0; i < RUNS; i++) {
    let cpu = childrenCpuMs();
    bare.push(await once(plain));
    bareCpu += childrenCpuMs() - cpu;
    cpu = childrenCpuMs();
    boxed.push(await once(sandbox.runner));
    boxedCpu += childrenCpuMs() - cpu;
  }
  const added = median(boxed) - median(bare);
  const load = readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
  console.log(`Load average during the run: ${load}.`);
  console.log('| measure | wall, median of 20 | CPU of the command\'s processes, mean |');
  console.log('|---|---|---|');
  console.log(`| \`true\` on the host (runner) | ${fmt(median(bare))} | ${fmt(bareCpu / RUNS)} |`);
  console.log(`| \`true\` in a workspace-write bubblewrap sandbox | ${fmt(median(boxed))} | ${fmt(boxedCpu / RUNS)} |`);
  figure('sandbox.added', added, 'ms');
  console.log(`| added by the sandbox | **${fmt(added)}** (goal ≤ 15 ms: ${added <= 15 ? 'met' : 'not met'}) | ${fmt((boxedCpu - bareCpu) / RUNS)} |`);
}
rmSync(dir, { recursive: true, force: true });
