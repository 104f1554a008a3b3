/*
 * Starting short programs (git) from a small shell instead of from this process.
 *
 * Why: Node starts a child with fork(), which copies this process's page tables first. At the
 * ~100 MB a fan-out of sub-agents holds, every spawn blocks the event loop for 4–6 ms, more
 * than most git calls take to run, and ten isolated sub-agents make over a hundred git calls
 * (bench/RESULTS.md, 2026-11-29 01:10). A shell of ~2 MB forks in a fraction
 * of that, so the calls are handed to one: a `/bin/sh` loop started once, on the first call.
 *
 * Contract of `startProgram(file, args, { cwd, env, input })`:
 * - Runs `file` with exactly `args`, in `cwd`, with exactly the environment `env` (less any
 *   variable whose name a POSIX shell cannot hold, such as an exported bash function: no
 *   program started here uses one), `input` on its standard input (empty when none), in a new
 *   session: it leads its own process group, as with `spawn(…, { detached: true })`.
 * - `exited` resolves with the exit code (128 + n for a signal n under the relay, null for a
 *   signal when spawned directly) and the whole standard output and error. It rejects with an
 *   error whose `code` is 'ENOENT' when the program or `cwd` does not exist, as spawn does.
 * - `kill()` sends SIGKILL to the program's process group (and to the program itself, should
 *   it not lead one yet); a program of this process's is also killed when the process exits
 *   (exit-reaper.ts).
 * - Where the relay cannot run (not Linux, no `/bin/sh` or `setsid`, or
 *   `OPENCODE_INK_PROCESS_RELAY=0`), or when it has stopped, the program is spawned directly:
 *   the same contract, at the fork's price.
 * - The relay never keeps the program alive: it is unreferenced while no program runs, and it
 *   ends when this process's end closes its input. Its job files live in a private temporary
 *   folder (mode 0700) removed at exit: each job's script (arguments, working folder, the
 *   variables that differ from the relay's own environment) and its input and output.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { accessSync, constants, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join, resolve } from 'node:path';
import { forgetOnExit, signalOnExit } from './exit-reaper.js';

export interface ProgramOptions {
  cwd: string;
  env: NodeJS.ProcessEnv;
  input?: string | Buffer;
}

export interface ProgramResult {
  code: number | null;
  stdout: Buffer;
  stderr: Buffer;
}

export interface StartedProgram {
  exited: Promise<ProgramResult>;
  kill(): void;
}

/** Names a shell variable can have; others cannot be exported by `sh` (bash's `BASH_FUNC_f%%`). */
const SHELL_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Starts `file` from the relay when there is one, else with spawn. */
export function startProgram(file: string, args: readonly string[], opts: ProgramOptions): StartedProgram {
  return relay()?.start(file, args, opts) ?? spawnDirectly(file, args, opts);
}

function spawnDirectly(file: string, args: readonly string[], opts: ProgramOptions): StartedProgram {
  const child = spawn(file, [...args], { cwd: opts.cwd, env: opts.env, stdio: ['pipe', 'pipe', 'pipe'], detached: true });
  const pid = child.pid;
  if (pid !== undefined) signalOnExit(pid, 'SIGKILL');
  const exited = new Promise<ProgramResult>((resolve, reject) => {
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (d: Buffer) => out.push(d));
    child.stderr.on('data', (d: Buffer) => err.push(d));
    child.on('error', (e) => {
      if (pid !== undefined) forgetOnExit(pid);
      reject(e);
    });
    // The program may exit before reading all of its input: its exit code says why.
    child.stdin.on('error', () => {});
    child.stdin.end(opts.input ?? '');
    child.on('close', (code) => {
      if (pid !== undefined) forgetOnExit(pid);
      resolve({ code, stdout: Buffer.concat(out), stderr: Buffer.concat(err) });
    });
  });
  return {
    exited,
    kill: () => {
      try {
        if (pid !== undefined) process.kill(-pid, 'SIGKILL');
      } catch {
        child.kill('SIGKILL');
      }
    },
  };
}

/** Exit codes of a job that did not start its program: `cd` failed, or nothing to execute. */
const NO_FOLDER = 125;
const NOT_FOUND = 127;

/**
 * The loop the relay shell runs: each line names a job script in folder $1; the job runs in
 * the background (`&`: its standard input is /dev/null), and two lines report its process id
 * and its exit status. Lines shorter than PIPE_BUF are written whole, so concurrent jobs'
 * reports never mix.
 */
const LOOP = 'd=$1; while IFS= read -r id; do { . "$d/$id" & p=$!; echo "pid $id $p"; wait "$p"; echo "done $id $?"; } & done';

interface Job {
  id: number;
  pid: number | undefined;
  killed: boolean;
  resolve(result: ProgramResult): void;
  reject(error: Error): void;
}

class Relay {
  private readonly jobs = new Map<number, Job>();
  private nextId = 0;
  private pending = '';
  private alive = true;

  private constructor(
    private readonly shell: ChildProcess & { stdin: NonNullable<ChildProcess['stdin']>; stdout: NonNullable<ChildProcess['stdout']> },
    private readonly dir: string,
    private readonly setsid: string,
    private readonly baseEnv: NodeJS.ProcessEnv,
  ) {
    shell.stdout.setEncoding('utf8');
    shell.stdout.on('data', (text: string) => this.read(text));
    shell.stdout.on('close', () => this.stop());
    shell.on('exit', () => (this.alive = false));
    shell.on('error', () => this.stop());
    shell.stdin.on('error', () => this.stop());
    this.idle();
  }

  static open(setsid: string): Relay | undefined {
    let dir: string | undefined;
    try {
      dir = mkdtempSync(join(tmpdir(), 'opencode-ink-relay-'));
      // Only what no job overrides: each job's script sets the variables its environment adds or changes.
      const baseEnv = shellEnv(process.env);
      // Its own process group: a Ctrl+C the terminal sends to ours must not end it.
      const shell = spawn('/bin/sh', ['-c', LOOP, 'opencode-ink-relay', dir], { stdio: ['pipe', 'pipe', 'ignore'], env: baseEnv, detached: true });
      if (!shell.stdin || !shell.stdout || shell.pid === undefined) throw new Error('no relay');
      const folder = dir;
      process.on('exit', () => rmSync(folder, { recursive: true, force: true }));
      return new Relay(shell as Relay['shell'], dir, setsid, baseEnv);
    } catch {
      if (dir) rmSync(dir, { recursive: true, force: true });
      return undefined;
    }
  }

  get usable(): boolean {
    return this.alive;
  }

  start(file: string, args: readonly string[], opts: ProgramOptions): StartedProgram | undefined {
    if (!this.alive) return undefined;
    const id = ++this.nextId;
    const base = join(this.dir, String(id));
    const lines: string[] = [];
    const env = shellEnv(opts.env);
    for (const name of Object.keys(this.baseEnv)) if (env[name] === undefined) lines.push(`unset ${name}`);
    for (const [name, value] of Object.entries(env)) if (value !== this.baseEnv[name]) lines.push(`export ${name}=${quote(value ?? '')}`);
    lines.push(`cd -- ${quote(resolve(opts.cwd))} 2>/dev/null || exit ${NO_FOLDER}`);
    let stdin = '/dev/null';
    if (opts.input !== undefined && opts.input.length > 0) {
      stdin = `${base}.in`;
      writeFileSync(stdin, opts.input, { mode: 0o600 });
    }
    const command = [this.setsid, file, ...args].map(quote).join(' ');
    lines.push(`exec ${command} <${quote(stdin)} >${quote(`${base}.out`)} 2>${quote(`${base}.err`)}`);
    writeFileSync(base, `${lines.join('\n')}\n`, { mode: 0o600 });
    let job!: Job;
    const exited = new Promise<ProgramResult>((resolve, reject) => {
      job = { id, pid: undefined, killed: false, resolve, reject };
    });
    this.jobs.set(id, job);
    if (this.jobs.size === 1) this.busy();
    this.shell.stdin.write(`${id}\n`);
    return { exited, kill: () => this.kill(job) };
  }

  private kill(job: Job): void {
    job.killed = true;
    if (job.pid === undefined) return; // killed as soon as its id is known
    for (const target of [-job.pid, job.pid]) {
      try {
        process.kill(target, 'SIGKILL');
      } catch {
        // Not (or no longer) there.
      }
    }
  }

  private read(text: string): void {
    this.pending += text;
    for (let end = this.pending.indexOf('\n'); end !== -1; end = this.pending.indexOf('\n')) {
      const [kind, id, value] = this.pending.slice(0, end).split(' ');
      this.pending = this.pending.slice(end + 1);
      const job = this.jobs.get(Number(id));
      if (!job) continue;
      if (kind === 'pid') {
        job.pid = Number(value);
        signalOnExit(job.pid, 'SIGKILL');
        if (job.killed) this.kill(job);
      } else if (kind === 'done') {
        this.finish(job, Number(value));
      }
    }
  }

  private finish(job: Job, code: number): void {
    this.jobs.delete(job.id);
    if (this.jobs.size === 0) this.idle();
    if (job.pid !== undefined) forgetOnExit(job.pid);
    const base = join(this.dir, String(job.id));
    const take = (path: string) => {
      try {
        return readFileSync(path);
      } catch {
        return Buffer.alloc(0);
      } finally {
        rmSync(path, { force: true });
      }
    };
    const stdout = take(`${base}.out`);
    const stderr = take(`${base}.err`);
    rmSync(base, { force: true });
    rmSync(`${base}.in`, { force: true });
    if (!job.killed && (code === NO_FOLDER || code === NOT_FOUND) && stdout.length === 0) {
      const what = code === NO_FOLDER ? 'its working folder does not exist' : stderr.toString('utf8').trim();
      job.reject(Object.assign(new Error(`the program could not start: ${what}`), { code: 'ENOENT' }));
      return;
    }
    job.resolve({ code, stdout, stderr });
  }

  /** The shell is gone: jobs it never reported on fail, and later programs are spawned directly. */
  private stop(): void {
    this.alive = false;
    for (const job of this.jobs.values()) {
      job.reject(new Error('the process relay stopped before the program ended'));
      if (job.pid !== undefined) forgetOnExit(job.pid);
    }
    this.jobs.clear();
  }

  /** Nothing running: the relay must not keep this process alive. */
  private idle(): void {
    this.shell.unref();
    unrefStream(this.shell.stdin);
    unrefStream(this.shell.stdout);
  }

  private busy(): void {
    this.shell.ref();
    refStream(this.shell.stdin);
    refStream(this.shell.stdout);
  }
}

function unrefStream(stream: object): void {
  if ('unref' in stream && typeof stream.unref === 'function') stream.unref();
}

function refStream(stream: object): void {
  if ('ref' in stream && typeof stream.ref === 'function') stream.ref();
}

/** `env` without what a shell cannot carry: names it cannot hold, undefined values. */
function shellEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(env)) if (value !== undefined && SHELL_NAME.test(name)) out[name] = value;
  return out;
}

/** A word the shell reads back exactly: single quotes, each quote inside closed, escaped and reopened. */
function quote(word: string): string {
  return `'${word.replace(/'/g, `'\\''`)}'`;
}

let current: Relay | undefined;
let failures = 0;

/** The relay, started on first use; undefined where it cannot run. Restarted if it stopped (three times at most). */
function relay(): Relay | undefined {
  if (current?.usable) return current;
  if (failures >= 3 || process.platform !== 'linux' || process.env.OPENCODE_INK_PROCESS_RELAY === '0' || !existsSync('/bin/sh')) return undefined;
  const setsid = findProgram('setsid');
  if (!setsid) {
    failures = 3;
    return undefined;
  }
  if (current) failures++;
  current = Relay.open(setsid);
  if (!current) failures = 3;
  return current;
}

function findProgram(name: string): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    if (!dir) continue;
    const path = join(dir, name);
    try {
      accessSync(path, constants.X_OK);
      return path;
    } catch {
      // not here
    }
  }
  return undefined;
}
