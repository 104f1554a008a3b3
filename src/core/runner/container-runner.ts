// One sub-agent's container and the command runner on it (DESIGN §25). Contract:
// - `ContainerRunner.create` starts a container from the image (network `none` unless allowed,
//   cpu and memory limits, labels naming this program's instance and the session), makes the
//   workspace folder at the same absolute path and copies the workspace in — or, started from a
//   batch's base image that holds it already (base-image.ts: the image it runs, or one mounted at
//   the workspace on a Podman host), copies in only what changed since;
// - `run` implements the runner interface (sandbox/runner.ts): before the command, what changed
//   on this machine since the last sync is copied in (deleted files removed); the command runs in
//   a shell in the container with the given environment minus this machine's own paths (on a
//   long-lived command shell, command-server.ts, when one starts; an exec of its own otherwise,
//   or when the command has stdin of its own); after it
//   ends, what it created, changed or deleted is copied back (modes kept, `.git` never, nothing
//   outside the workspace); then `exited` resolves;
// - `stop` ends every process the command started (found by a marker in their environment, as on
//   the host), gracefully then forcibly; `remove` deletes the container.
import { randomBytes } from 'node:crypto';
import { PassThrough, type Readable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import type Docker from 'dockerode';
import type { CommandExit, RemoteCommandRunner, RunningCommand, RunOptions } from '../sandbox/runner.js';
import type { BaseImage, ContainerListing, ListedEntry } from './base-image.js';
import { CommandServer, shellQuote } from './command-server.js';
import { createOverWorkspaceImage } from './libpod.js';
import { markedProcessesScript } from './marked-processes.js';
import { changedSince, entryAt, readEntries, removeBack, scanTree, writeBack, type LocalTree } from './local-tree.js';
import { packTar, parseTar } from './tar.js';

/** Environment of this machine that means nothing (or too much) inside a container. */
const HOST_ONLY_ENV = /^(PATH|HOME|SHELL|USER|LOGNAME|PWD|OLDPWD|TMPDIR|TMP|TEMP|HOSTNAME|DISPLAY|MAIL|XDG_.*|SSH_.*|DBUS_.*|WAYLAND_.*|GPG_.*|DOCKER_.*|KUBECONFIG|.*(KEY|TOKEN|SECRET|PASSWORD|CREDENTIALS?).*)$/i;
const MARKER_VAR = 'OPENCODE_INK_COMMAND';
const STOP_GRACE_S = 2;
/** Command shells kept waiting per container: enough for a command beside a background shell. */
const MAX_IDLE_SERVERS = 2;
/** Arguments per `tar -c` call when copying files back, well under any exec limit. */
const NAMES_PER_BATCH_BYTES = 64 * 1024;

/**
 * Whether a listing holds entries changed in the second it was taken (`now`, whole seconds): a
 * command could change those again within that second unseen by times, so the next comparison
 * reads them by content.
 */
function changedInItsSecond(entries: Map<string, Listed>, now: number): boolean {
  for (const entry of entries.values()) if (entry.ctime >= now) return true;
  return false;
}

/** Milliseconds from `from` (now by default) until this machine's clock is into the next second; a host whose clock differs is read again in vain, and stays correct. */
function untilNextSecond(from = Date.now()): number {
  return 1000 - (from % 1000) + 20;
}

export interface ContainerSpec {
  docker: Docker;
  host: string;
  image: string;
  workspace: string;
  network: boolean;
  cpus?: number | undefined;
  memoryMb?: number | undefined;
  labels: Record<string, string>;
  name: string;
  /**
   * The batch's base (base-image.ts): `image` itself, or (`mounted`) mounted at the workspace over
   * `image`; only what changed since its tree was read is copied in.
   */
  base?: BaseImage | undefined;
}

type Listed = ListedEntry;

export interface ExecResult {
  stdout: Buffer;
  stderr: Buffer;
  exitCode: number | null;
}

export class ContainerRunner implements RemoteCommandRunner {
  readonly description: string;
  /** What both sides held after the last sync, as this machine sees it. */
  private localBase: LocalTree = new Map();
  /** The same, as the container's `stat` saw it, and the container's clock then. */
  private containerBase = new Map<string, Listed>();
  private containerNow = 0;
  /** One sync at a time: background shells and a foreground command share the workspace. */
  private syncing: Promise<unknown> = Promise.resolve();
  private removed = false;
  /** Command shells waiting for work; see command-server.ts. */
  private idleServers: CommandServer[] = [];
  private readonly allServers = new Set<CommandServer>();
  /** The command shell started with the container, until a command takes it. */
  private warming: Promise<CommandServer | undefined> | undefined;
  /** Set once a command shell could not start: commands then run one exec each, as before. */
  private serversBroken = false;
  /** Files a sync could not copy back, told once in the next result. */
  notes: string[] = [];

  private constructor(
    private readonly container: Docker.Container,
    private readonly spec: ContainerSpec,
  ) {
    this.description = `container ${spec.name} on ${spec.host}`;
  }

  get id(): string {
    return this.container.id;
  }

  get host(): string {
    return this.spec.host;
  }

  get name(): string {
    return this.spec.name;
  }

  get where(): { host: string; container: string } {
    return { host: this.spec.host, container: this.spec.name };
  }

  static async create(spec: ContainerSpec): Promise<ContainerRunner> {
    // Waits for nothing, forever, and ends at once on TERM: the container's life is ours to end.
    const entrypoint = ['/bin/sh'];
    const command = ['-c', 'trap "exit 0" TERM INT; while :; do sleep 3600 & wait $!; done'];
    const container = spec.base?.mounted
      ? spec.docker.getContainer(
          await createOverWorkspaceImage(spec.docker, { ...spec, entrypoint, command, workspaceImage: spec.base.image }),
        )
      : await spec.docker.createContainer({
          name: spec.name,
          Image: spec.image,
          Entrypoint: entrypoint,
          Cmd: command,
          Labels: spec.labels,
          Env: [],
          HostConfig: {
            NetworkMode: spec.network ? 'bridge' : 'none',
            ...(spec.cpus ? { NanoCpus: Math.round(spec.cpus * 1e9) } : {}),
            ...(spec.memoryMb ? { Memory: spec.memoryMb * 1024 * 1024 } : {}),
          },
        });
    const runner = new ContainerRunner(container, spec);
    try {
      await container.start();
      if (spec.base) await runner.startFromBase(spec.base);
      else {
        const made = await runner.exec(['/bin/sh', '-c', 'mkdir -p -- "$1"', 'sh', spec.workspace]);
        if (made.exitCode !== 0) throw new Error(`could not make ${spec.workspace} in the container: ${made.stderr.toString().trim() || `exit ${made.exitCode}`}`);
        await runner.syncIn();
        const { entries } = await runner.listContainer();
        // What was just copied in shares the listing's second: read again once it has passed, while
        // the model thinks; the first command waits for it (it is in the sync queue).
        if (changedInItsSecond(entries, runner.containerNow)) void runner.serial(() => runner.listOnceItsSecondPassed()).catch(() => undefined);
      }
    } catch (err) {
      await runner.remove();
      throw err;
    }
    // The first command's shell starts now, while the model thinks: its exec is most of what a
    // first command waits for (several hundred ms when many containers start at once).
    runner.warming = runner.startServer();
    return runner;
  }

  /** Runs `argv` in the container to its end, collecting its output. */
  async exec(argv: string[], env: string[] = [], workdir?: string): Promise<ExecResult> {
    const exec = await this.container.exec({ Cmd: argv, Env: env, AttachStdout: true, AttachStderr: true, ...(workdir ? { WorkingDir: workdir } : {}) });
    const stream = await exec.start({ hijack: true, stdin: false });
    const stdout: Buffer[] = [];
    const stderr: Buffer[] = [];
    const out = new PassThrough();
    const err = new PassThrough();
    out.on('data', (chunk: Buffer) => stdout.push(chunk));
    err.on('data', (chunk: Buffer) => stderr.push(chunk));
    this.spec.docker.modem.demuxStream(stream, out, err);
    await new Promise<void>((resolve) => {
      stream.once('end', resolve);
      stream.once('close', resolve);
      stream.once('error', () => resolve());
    });
    const info = await exec.inspect();
    return { stdout: Buffer.concat(stdout), stderr: Buffer.concat(stderr), exitCode: info.ExitCode ?? null };
  }

  private serial<T>(work: () => Promise<T>): Promise<T> {
    const next = this.syncing.then(work, work);
    this.syncing = next.catch(() => undefined);
    return next;
  }

  /**
   * A container from a base already holds the workspace as the base's tree: copy in what changed
   * here since, and take the container's view from the base's one listing, corrected for what
   * was just copied in (left for the next comparison to read) or removed.
   */
  private async startFromBase(base: BaseImage): Promise<void> {
    this.localBase = new Map(base.tree);
    const shared: Promise<ContainerListing> = (base.listing ??= this.listSettled(base.madeAt));
    const listing = await shared.catch(() => undefined);
    const { changed, deleted } = await this.syncIn();
    if (!listing) {
      await this.listContainer();
      return;
    }
    const entries = new Map(listing.entries);
    for (const gone of deleted) for (const key of [...entries.keys()]) if (key === gone || key.startsWith(`${gone}/`)) entries.delete(key);
    // Unknown times: whatever the first command leaves there is compared by content.
    for (const path of changed) entries.set(path, { ctime: -1, mtime: -1, rawMode: -1, size: -1 });
    this.containerBase = entries;
    this.containerNow = listing.now;
  }

  /**
   * The workspace's listing for every child of a base. The image's files were written when it was
   * committed, often in the second the listing is taken; a listing holding such entries would have
   * every child compare them all by content after its first command, so it is taken once that
   * second has passed: this container's start mostly covers the wait. A host whose clock differs
   * is read again a second later (nothing runs in the container meanwhile).
   */
  private async listSettled(madeAt?: number): Promise<ContainerListing> {
    if (madeAt !== undefined) await sleep(Math.max(0, untilNextSecond(madeAt) - (Date.now() - madeAt)));
    let { entries } = await this.listContainer();
    if (changedInItsSecond(entries, this.containerNow)) entries = await this.listOnceItsSecondPassed();
    return { entries, now: this.containerNow };
  }

  /** The listing again, once this machine's clock is into the next second (nothing of a command runs meanwhile). */
  private async listOnceItsSecondPassed(): Promise<Map<string, Listed>> {
    await sleep(untilNextSecond());
    return (await this.listContainer()).entries;
  }

  /** Copies in what changed on this machine since the last sync, and removes what was deleted here; what it copied and removed. */
  private async syncIn(): Promise<{ changed: string[]; deleted: string[] }> {
    const now = await scanTree(this.spec.workspace);
    const { changed, deleted } = changedSince(this.localBase, now);
    if (deleted.length) {
      const gone = await this.exec(['/bin/sh', '-c', 'cd -- "$1" && shift && rm -rf -- "$@"', 'sh', this.spec.workspace, ...deleted.map((p) => `./${p}`)]);
      if (gone.exitCode !== 0) throw new Error(`could not remove deleted files in the container: ${gone.stderr.toString().trim()}`);
    }
    if (changed.length) {
      const archive = packTar(await readEntries(this.spec.workspace, now, changed));
      await this.container.putArchive(archive, { path: this.spec.workspace });
    }
    this.localBase = now;
    return { changed, deleted };
  }

  /**
   * The container's view of the workspace: every entry's times, mode and size. With `marker`, the
   * same exec first tells whether a process of that command is still running (one round trip
   * after each command, not two): `leftovers` is then set.
   */
  private async listContainer(marker?: string, server?: CommandServer): Promise<{ entries: Map<string, Listed>; leftovers: boolean }> {
    const list = 'cd -- "$1" || exit 97; date +%s; find . -mindepth 1 -name .git -prune -o -exec stat -c "%Z %Y %f %s %n" {} +';
    const script = marker === undefined ? list : `${markedProcessesScript({ action: 'echo live', markerArg: '$2', firstOnly: true })} echo gone; ${list}`;
    const args = [this.spec.workspace, ...(marker === undefined ? [] : [`${MARKER_VAR}=${marker}`])];
    let stdout: Buffer;
    if (server) {
      // The same script on the command's own shell: a round trip instead of an exec. Its exit code
      // is not carried, so a listing that could not start says so in its first line.
      const answer = await server.query(`set -- ${args.map(shellQuote).join(' ')}; ${script.replace('exit 97', '{ echo unlisted; exit 97; }')}`);
      if (!answer) throw new Error('the command shell in the container ended');
      stdout = answer;
    } else {
      const listed = await this.exec(['/bin/sh', '-c', script, 'sh', ...args]);
      if (listed.exitCode !== 0) throw new Error(`could not list the workspace in the container: ${listed.stderr.toString().trim() || `exit ${listed.exitCode}`}`);
      stdout = listed.stdout;
    }
    const lines = stdout.toString('utf8').split('\n');
    const leftovers = marker !== undefined && lines.shift() === 'live';
    if (marker !== undefined && lines[0] === 'gone') lines.shift();
    if (lines[0] === 'unlisted') throw new Error(`could not list the workspace in the container: ${this.spec.workspace} is gone there`);
    const entries = new Map<string, Listed>();
    this.containerNow = Number(lines[0]) || 0;
    for (const line of lines.slice(1)) {
      const match = /^(\d+) (\d+) ([0-9a-f]+) (\d+) \.\/(.+)$/.exec(line);
      if (!match) continue;
      entries.set(match[5]!, { ctime: Number(match[1]), mtime: Number(match[2]), rawMode: parseInt(match[3]!, 16), size: Number(match[4]) });
    }
    this.containerBase = entries;
    return { entries, leftovers };
  }

  /** Copies back what a command created, changed or deleted in the container; whether a process of the command (`marker`) still runs. */
  private async syncOut(marker?: string, server?: CommandServer): Promise<boolean> {
    const before = this.containerBase;
    const since = this.containerNow;
    const { entries: after, leftovers } = await this.listContainer(marker, server);
    const candidates: string[] = [];
    for (const [path, entry] of after) {
      const was = before.get(path);
      // Times are whole seconds here: anything touched in the second of the last look is compared by content.
      if (!was || was.ctime !== entry.ctime || was.mtime !== entry.mtime || was.rawMode !== entry.rawMode || was.size !== entry.size || entry.ctime >= since) candidates.push(path);
    }
    const deleted = [...before.keys()].filter((path) => !after.has(path));
    for (const path of deleted.sort((a, b) => b.length - a.length)) {
      const why = await removeBack(this.spec.workspace, path);
      if (why) this.notes.push(why);
      else for (const key of [...this.localBase.keys()]) if (key === path || key.startsWith(`${path}/`)) this.localBase.delete(key);
    }
    for (const batch of batches(candidates)) {
      const packed = await this.exec(['/bin/sh', '-c', 'cd -- "$1" && shift && tar -cf - --no-recursion -- "$@"', 'sh', this.spec.workspace, ...batch.map((p) => `./${p}`)]);
      if (packed.exitCode !== 0 && packed.stdout.length === 0) throw new Error(`could not copy files back from the container: ${packed.stderr.toString().trim()}`);
      // Folders first, so their files have somewhere to go.
      const entries = parseTar(packed.stdout).sort((a, b) => (a.type === 'dir' ? 0 : 1) - (b.type === 'dir' ? 0 : 1) || a.name.length - b.name.length);
      for (const entry of entries) {
        const why = await writeBack(this.spec.workspace, entry);
        if (why) {
          this.notes.push(why);
          continue;
        }
        // What came back is what both sides hold; anything else changed here meanwhile is still copied in next time.
        const now = await entryAt(this.spec.workspace, entry.name);
        if (now) this.localBase.set(entry.name, now);
      }
    }
    return leftovers;
  }

  async run(command: string, options: RunOptions): Promise<RunningCommand> {
    const startError = (message: string): RunningCommand => ({
      pid: undefined,
      output: undefined,
      exited: Promise.resolve({ exitCode: null, signal: null, startError: message }),
      alive: () => false,
      stop: () => Promise.resolve(),
      release: () => {},
    });
    if (this.removed) return startError(`the container ${this.spec.name} on ${this.spec.host} was removed`);
    try {
      await this.serial(() => this.syncIn());
    } catch (err) {
      return startError(`copying the workspace into ${this.description} failed: ${err instanceof Error ? err.message : String(err)}`);
    }
    const marker = randomBytes(8).toString('hex');
    const env = Object.entries(options.env)
      .filter(([key]) => !HOST_ONLY_ENV.test(key))
      .map(([key, value]) => `${key}=${value}`);
    env.push(`${MARKER_VAR}=${marker}`);
    // A command with stdin of its own, or one the shell cannot carry, takes an exec of its own.
    const server = options.input === undefined && !command.includes('\0') && !options.cwd.includes('\0') ? await this.takeServer() : undefined;
    if (server) return this.runOnServer(server, command, options, marker);
    let stream: NodeJS.ReadWriteStream;
    let execId: Docker.Exec;
    try {
      execId = await this.container.exec({ Cmd: ['/bin/sh', '-c', command], Env: env, WorkingDir: options.cwd, AttachStdout: true, AttachStderr: true, AttachStdin: options.input !== undefined });
      stream = await execId.start({ hijack: true, stdin: options.input !== undefined });
    } catch (err) {
      return startError(`${this.description}: ${err instanceof Error ? err.message : String(err)}`);
    }
    if (options.input !== undefined) stream.end(options.input);
    const stdout = new PassThrough();
    const stderr = options.separateOutput ? new PassThrough() : stdout;
    this.spec.docker.modem.demuxStream(stream, stdout, stderr);
    const streamDone = new Promise<void>((resolve) => {
      stream.once('end', resolve);
      stream.once('close', resolve);
      stream.once('error', () => resolve());
    });
    const life = new CommandLife(() => this.killMarked(marker), options.signal);
    const exited = (async (): Promise<CommandExit> => {
      await streamDone;
      stdout.end();
      if (stderr !== stdout) stderr.end();
      const info = await execId.inspect().catch(() => undefined);
      await this.settle(life, marker);
      return { exitCode: info?.ExitCode ?? null, signal: null };
    })();
    return this.running(life, exited, stdout, stderr, options);
  }

  /** After a command's end: what it wrote comes back, and whether it left processes running. */
  private async settle(life: CommandLife, marker: string, server?: CommandServer): Promise<void> {
    life.running = false;
    try {
      life.leftovers = await this.serial(() => this.syncOut(marker, server));
    } catch (err) {
      life.leftovers = await this.anyMarked(marker).catch(() => false);
      this.notes.push(`copying results back from ${this.description} failed: ${err instanceof Error ? err.message : String(err)}`);
    }
    life.done();
  }

  private running(life: CommandLife, exited: Promise<CommandExit>, stdout: PassThrough, stderr: PassThrough, options: RunOptions): RunningCommand {
    const output: Readable = stdout;
    return {
      pid: 0,
      output: options.separateOutput ? undefined : output,
      ...(options.separateOutput ? { stdout, stderr } : {}),
      exited,
      alive: () => life.alive(),
      stop: () => life.stop(),
      release: () => {},
    };
  }

  /** A command shell free for one command: an idle one, or a new one; undefined when they cannot start here. */
  private async takeServer(): Promise<CommandServer | undefined> {
    // Taken by one command only: the next one finds it gone and looks further.
    const warming = this.warming;
    this.warming = undefined;
    const warmed = await warming;
    if (warmed && !warmed.dead && !this.removed) {
      warmed.busy = true;
      return warmed;
    }
    while (this.idleServers.length) {
      const server = this.idleServers.pop()!;
      if (!server.dead) {
        server.busy = true;
        return server;
      }
      this.allServers.delete(server);
    }
    const server = await this.startServer();
    if (server) server.busy = true;
    return server;
  }

  private async startServer(): Promise<CommandServer | undefined> {
    if (this.serversBroken || this.removed) return undefined;
    try {
      const server = await CommandServer.start(this.container, this.spec.docker);
      if (this.removed) {
        server.close();
        return undefined;
      }
      this.allServers.add(server);
      return server;
    } catch {
      // Commands still run, one exec each, as before the command shell existed.
      this.serversBroken = true;
      return undefined;
    }
  }

  /** Back to the idle list, or closed when enough wait already (each is a shell in the container). */
  private releaseServer(server: CommandServer): void {
    server.busy = false;
    if (server.dead || this.removed || this.idleServers.length >= MAX_IDLE_SERVERS) {
      server.close();
      this.allServers.delete(server);
      return;
    }
    this.idleServers.push(server);
  }

  private runOnServer(server: CommandServer, command: string, options: RunOptions, marker: string): RunningCommand {
    const env: Record<string, string> = {};
    for (const [key, value] of Object.entries(options.env)) if (!HOST_ONLY_ENV.test(key)) env[key] = value;
    env[MARKER_VAR] = marker;
    const stdout = new PassThrough();
    const stderr = options.separateOutput ? new PassThrough() : stdout;
    const life = new CommandLife(() => this.killMarked(marker), options.signal);
    const exited = (async (): Promise<CommandExit> => {
      const code = await server.command(command, options.cwd, env, stdout, stderr);
      stdout.end();
      if (stderr !== stdout) stderr.end();
      await this.settle(life, marker, server.dead ? undefined : server);
      // A process the command left may still write to this shell's output: it serves no one else.
      if (life.leftovers) {
        server.close();
        this.allServers.delete(server);
      } else this.releaseServer(server);
      return { exitCode: code, signal: null };
    })();
    return this.running(life, exited, stdout, stderr, options);
  }

  /** Runs `action` (with `$p`) on every process whose environment carries the marker: the command and all it started, escaped ones too; exit 0 when any was found. */
  private marked(marker: string, action: string): Promise<ExecResult> {
    return this.exec(['/bin/sh', '-c', `${markedProcessesScript({ action, markerArg: '$1', firstOnly: false })} exit $found`, 'sh', `${MARKER_VAR}=${marker}`]);
  }

  private async anyMarked(marker: string): Promise<boolean> {
    return (await this.marked(marker, ':')).exitCode === 0;
  }

  private async killMarked(marker: string): Promise<void> {
    if (this.removed) return;
    await this.marked(marker, 'kill -TERM "$p" 2>/dev/null').catch(() => undefined);
    const deadline = Date.now() + STOP_GRACE_S * 1000;
    while (Date.now() < deadline && (await this.anyMarked(marker).catch(() => false))) await new Promise((resolve) => setTimeout(resolve, 100));
    await this.marked(marker, 'kill -KILL "$p" 2>/dev/null').catch(() => undefined);
  }

  /** Files a sync could not copy back since the last call: one sentence, or undefined. */
  takeNotes(): string | undefined {
    const notes = this.notes;
    this.notes = [];
    return notes.length ? `Not copied back from the container: ${notes.join('; ')}` : undefined;
  }

  /** Deletes the container; safe to call more than once. */
  async remove(): Promise<void> {
    if (this.removed) return;
    this.removed = true;
    for (const server of this.allServers) server.close();
    this.allServers.clear();
    this.idleServers = [];
    await this.container.remove({ force: true }).catch((err: { statusCode?: number }) => {
      if (err.statusCode !== 404) throw err;
    });
  }
}

/**
 * One command's life as its caller sees it: running until it ends, then alive while processes it
 * left run; `stop` (also when the signal aborts) ends them all, once.
 */
class CommandLife {
  running = true;
  leftovers = false;
  private stopping: Promise<void> | undefined;
  private readonly onAbort = (): void => void this.stop();

  constructor(
    private readonly kill: () => Promise<void>,
    private readonly signal: AbortSignal,
  ) {
    signal.addEventListener('abort', this.onAbort, { once: true });
    if (signal.aborted) this.onAbort();
  }

  stop(): Promise<void> {
    this.stopping ??= this.kill().then(() => {
      this.leftovers = false;
    });
    return this.stopping;
  }

  alive(): boolean {
    return this.running || this.leftovers;
  }

  done(): void {
    this.signal.removeEventListener('abort', this.onAbort);
  }
}

function batches(paths: readonly string[]): string[][] {
  const out: string[][] = [];
  let current: string[] = [];
  let bytes = 0;
  for (const path of paths) {
    if (bytes + path.length > NAMES_PER_BATCH_BYTES && current.length) {
      out.push(current);
      current = [];
      bytes = 0;
    }
    current.push(path);
    bytes += path.length + 3;
  }
  if (current.length) out.push(current);
  return out;
}
