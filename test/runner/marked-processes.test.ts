// The shell that finds a command's processes in a container (src/core/runner/marked-processes.ts),
// run by real shells (the system's sh, and busybox's, which container images often have) over a
// process folder made here: marked processes are found, others not; a process whose environment
// reads empty while it is being exec'd is read again and found once its environment shows;
// zombies and unreadable entries are not waited for.
import { execFile, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { markedProcessesScript } from '../../src/core/runner/marked-processes.js';

const MARKER = 'OPENCODE_INK_COMMAND=cmd_1';
const run = promisify(execFile);
const SHELLS = [['sh'], ...(existsSync('/bin/busybox') ? [['/bin/busybox', 'sh']] : [])];

let root: string;
const helpers: ChildProcess[] = [];

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'oc-proc-'));
});
afterEach(() => {
  for (const helper of helpers.splice(0)) helper.kill('SIGKILL');
  rmSync(root, { recursive: true, force: true });
});

/** A process entry: its environment (NUL-separated, as /proc gives it) and its state. */
function proc(pid: number, env: string[], state = 'S (sleeping)'): void {
  mkdirSync(join(root, String(pid)));
  writeFileSync(join(root, String(pid), 'environ'), env.map((line) => `${line}\0`).join(''));
  writeFileSync(join(root, String(pid), 'status'), `Name:\tsh\nState:\t${state}\n`);
}

interface Scan {
  hits: string[];
  found: string;
}

async function scan(shell: string[], firstOnly: boolean): Promise<Scan> {
  const script = `${markedProcessesScript({ action: 'echo "hit $p"', markerArg: '$1', firstOnly, procRoot: root })} echo "found $found"`;
  const { stdout } = await run(shell[0]!, [...shell.slice(1), '-c', script, 'sh', MARKER]);
  const lines = stdout.trim().split('\n');
  return { hits: lines.filter((l) => l.startsWith('hit ')).map((l) => l.slice(4)), found: lines.at(-1)!.replace('found ', '') };
}

describe.each(SHELLS)('marked processes, with %s', (...shell) => {
  it('acts on every process whose environment holds the marker line, and on no other', async () => {
    proc(101, ['PATH=/bin', MARKER]);
    proc(102, [MARKER, 'HOME=/root']);
    proc(103, ['PATH=/bin', `${MARKER}0`, `X${MARKER}`]);
    proc(104, ['PATH=/bin']);
    const all = await scan(shell, false);
    expect(all.hits.sort()).toEqual(['101', '102']);
    expect(all.found).toBe('0');
    const first = await scan(shell, true);
    expect(first.hits).toHaveLength(1);
    expect(first.found).toBe('0');
  });

  it('says none were found when no environment holds the marker', async () => {
    proc(201, ['PATH=/bin']);
    expect(await scan(shell, false)).toEqual({ hits: [], found: '1' });
  });

  it('reads again a process whose environment was empty while it was being exec\'d, and finds it', async () => {
    proc(301, ['PATH=/bin']);
    // Process 302 is mid-exec when the scan first reads it: an empty environment. Its status
    // is a pipe, so the moment the scan looks at it (deciding whether to wait for it) is known:
    // the exec then completes (the marker appears) before the scan learns it is no zombie.
    mkdirSync(join(root, '302'));
    writeFileSync(join(root, '302', 'environ'), '');
    const status = join(root, '302', 'status');
    expect(spawnSync('mkfifo', [status]).status).toBe(0);
    const execCompletes = spawn('sh', ['-c', 'exec 3>"$1"; printf "PATH=/bin\\0%s\\0" "$3" > "$2"; printf "State:\\tS (sleeping)\\n" >&3', 'sh', status, join(root, '302', 'environ'), MARKER], {
      stdio: 'ignore',
    });
    helpers.push(execCompletes);
    expect(await scan(shell, true)).toEqual({ hits: ['302'], found: '0' });
  });

  it('passes over zombies, entries it cannot read and environments emptied for good, and still finds the marked one', async () => {
    proc(401, [], 'Z (zombie)');
    // An entry whose environment cannot be read (another user's process, one already gone).
    mkdirSync(join(root, '402', 'environ'), { recursive: true });
    writeFileSync(join(root, '402', 'status'), 'State:\tS (sleeping)\n');
    // Waited for, a few times, then given up: an environment emptied for good (`env -i`).
    proc(403, []);
    proc(404, [MARKER]);
    expect(await scan(shell, false)).toEqual({ hits: ['404'], found: '0' });
  });
});

it('refuses a process folder that is not a plain absolute path', () => {
  expect(() => markedProcessesScript({ action: ':', markerArg: '$1', firstOnly: false, procRoot: 'proc' })).toThrow(/absolute path/);
  expect(() => markedProcessesScript({ action: ':', markerArg: '$1', firstOnly: false, procRoot: '/tmp/$(x)' })).toThrow(/plain characters/);
});
