// One long-lived shell in a container that runs commands sent over its stdin, so a command costs
// a round trip on an open stream instead of an exec to create, start and inspect (DESIGN §25,
// issue 38: an exec costs ~100+ ms on Podman). Contract:
// - `CommandServer.start(container, docker)` starts `/bin/sh` in an exec with stdin attached and
//   hands it a random token on stdin (never in its arguments or environment, so a command cannot
//   read it from /proc); it resolves once the shell answers, or rejects (the caller then runs
//   commands the old way, one exec each);
// - `command(...)` runs one shell command (its environment, working folder, stdin `/dev/null`) and
//   streams its stdout and stderr until the shell reports its exit code; `query(script)` runs a
//   script of ours and returns its stdout. One request at a time per server (`busy`);
// - control data is only ever read after the token: output that lacks it is output, whatever it
//   contains, so a command cannot end itself early or forge an exit code or a listing;
// - a server whose stream ends or errs is `dead`; `close()` ends it (its stdin closes, the loop ends).
import { randomBytes } from 'node:crypto';
import { PassThrough, type Writable } from 'node:stream';
import type Docker from 'dockerode';

const READY_MS = 10_000;

/**
 * Reads the token, says it is ready, then reads requests: a line with the number of lines that
 * follow, then that many lines of script, run in this shell. Nothing else is ever read.
 */
const SERVER_SCRIPT =
  'IFS= read -r t || exit 0; printf "%s R\\n" "$t"; ' +
  'while IFS= read -r n; do c=; i=0; while [ "$i" -lt "$n" ]; do IFS= read -r l || exit 0; c="$c$l\n"; i=$((i+1)); done; eval "$c"; done';

/** A value in single quotes for the shell, any bytes but NUL. */
export function shellQuote(value: string): string {
  return `'${value.replace(/'/g, `'\\''`)}'`;
}

const VALID_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

type Waiter = { kind: 'ready' } | { kind: 'command'; out: Writable; err: Writable } | { kind: 'query'; chunks: Buffer[] };

export class CommandServer {
  private readonly token: string;
  private readonly mark: Buffer;
  private stdoutBuffer: Buffer = Buffer.alloc(0);
  private stderrBuffer: Buffer = Buffer.alloc(0);
  private waiter: Waiter | undefined;
  /** Set while a request is under way; resolved with the exit code (commands) when both streams reached their marks. */
  private settle: ((value: { exitCode: number | null; stdout: Buffer }) => void) | undefined;
  private stdoutDone = false;
  private stderrDone = false;
  private exitCode: number | null = null;
  dead = false;
  busy = false;

  private constructor(private readonly stream: NodeJS.ReadWriteStream) {
    this.token = randomBytes(16).toString('hex');
    this.mark = Buffer.from(this.token);
  }

  static async start(container: Docker.Container, docker: Docker): Promise<CommandServer> {
    const exec = await container.exec({ Cmd: ['/bin/sh', '-c', SERVER_SCRIPT], AttachStdin: true, AttachStdout: true, AttachStderr: true, WorkingDir: '/' });
    const stream = await exec.start({ hijack: true, stdin: true });
    const server = new CommandServer(stream);
    const stdout = new PassThrough();
    const stderr = new PassThrough();
    docker.modem.demuxStream(stream, stdout, stderr);
    stdout.on('data', (chunk: Buffer) => server.onStdout(chunk));
    stderr.on('data', (chunk: Buffer) => server.onStderr(chunk));
    const ended = (): void => server.onEnd();
    stream.once('end', ended);
    stream.once('close', ended);
    stream.once('error', ended);
    const ready = server.request({ kind: 'ready' }, undefined);
    stream.write(`${server.token}\n`);
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), READY_MS)));
    const answer = await Promise.race([ready, late]).finally(() => clearTimeout(timer));
    if (answer === 'late' || server.dead) {
      server.close();
      throw new Error(answer === 'late' ? 'the command shell did not answer' : 'the command shell ended at once');
    }
    return server;
  }

  /**
   * Runs `command` with `/bin/sh -c` in `cwd` with `env` added to the container's own; its output
   * goes to `out` and `err` as it comes. Resolves with its exit code, null when the server died.
   */
  async command(command: string, cwd: string, env: Readonly<Record<string, string>>, out: Writable, err: Writable): Promise<number | null> {
    const exports = Object.entries(env)
      .filter(([key]) => VALID_NAME.test(key))
      .map(([key, value]) => `export ${key}=${shellQuote(value)}; `)
      .join('');
    const script =
      `( ${exports}cd -- ${shellQuote(cwd)} && exec /bin/sh -c ${shellQuote(command)} ) </dev/null; ` +
      `r=$?; printf "%s E %s\\n" "$t" "$r"; printf "%s E\\n" "$t" >&2`;
    const { exitCode } = await this.request({ kind: 'command', out, err }, script);
    return exitCode;
  }

  /** Runs a script of ours in a subshell (stdin `/dev/null`); its stdout, or undefined when the server died. */
  async query(script: string): Promise<Buffer | undefined> {
    const chunks: Buffer[] = [];
    const wrapped = `( ${script}\n) </dev/null 2>&1; printf "%s E 0\\n" "$t"; printf "%s E\\n" "$t" >&2`;
    const { exitCode, stdout } = await this.request({ kind: 'query', chunks }, wrapped);
    return exitCode === null ? undefined : stdout;
  }

  private request(waiter: Waiter, script: string | undefined): Promise<{ exitCode: number | null; stdout: Buffer }> {
    if (this.dead) return Promise.resolve({ exitCode: null, stdout: Buffer.alloc(0) });
    this.waiter = waiter;
    this.stdoutDone = false;
    // Only commands mark stderr; the handshake writes nothing there.
    this.stderrDone = waiter.kind === 'ready';
    this.exitCode = null;
    const settled = new Promise<{ exitCode: number | null; stdout: Buffer }>((resolve) => (this.settle = resolve));
    if (script !== undefined) {
      const lines = script.split('\n');
      this.stream.write(`${lines.length}\n${script}\n`);
    }
    return settled;
  }

  private finish(): void {
    if (!this.stdoutDone || !this.stderrDone || !this.settle) return;
    const settle = this.settle;
    const waiter = this.waiter;
    this.settle = undefined;
    this.waiter = undefined;
    settle({ exitCode: this.exitCode, stdout: waiter?.kind === 'query' ? Buffer.concat(waiter.chunks) : Buffer.alloc(0) });
  }

  /** How many bytes at the end of `data` could be the start of the token (held back until more comes). */
  private partialMark(data: Buffer): number {
    for (let keep = Math.min(this.mark.length - 1, data.length); keep > 0; keep--) {
      if (data.subarray(data.length - keep).equals(this.mark.subarray(0, keep))) return keep;
    }
    return 0;
  }

  private onStdout(chunk: Buffer): void {
    // Between requests nothing is anyone's: what a process a command left behind writes is dropped.
    if (!this.waiter || this.stdoutDone) return;
    this.stdoutBuffer = this.stdoutBuffer.length ? Buffer.concat([this.stdoutBuffer, chunk]) : chunk;
    const at = this.stdoutBuffer.indexOf(this.mark);
    if (at === -1) {
      const keep = this.partialMark(this.stdoutBuffer);
      this.deliver(this.stdoutBuffer.subarray(0, this.stdoutBuffer.length - keep), 'out');
      this.stdoutBuffer = Buffer.from(this.stdoutBuffer.subarray(this.stdoutBuffer.length - keep));
      return;
    }
    const lineEnd = this.stdoutBuffer.indexOf(0x0a, at);
    if (lineEnd === -1) return;
    this.deliver(this.stdoutBuffer.subarray(0, at), 'out');
    const control = this.stdoutBuffer.subarray(at + this.mark.length, lineEnd).toString('ascii').trim();
    this.stdoutBuffer = Buffer.alloc(0);
    if (control === 'R') this.stdoutDone = true;
    else {
      const match = /^E (\d+)$/.exec(control);
      this.exitCode = match ? Number(match[1]) : null;
      this.stdoutDone = true;
    }
    this.finish();
  }

  private onStderr(chunk: Buffer): void {
    if (!this.waiter || this.stderrDone) return;
    this.stderrBuffer = this.stderrBuffer.length ? Buffer.concat([this.stderrBuffer, chunk]) : chunk;
    const at = this.stderrBuffer.indexOf(this.mark);
    if (at === -1) {
      const keep = this.partialMark(this.stderrBuffer);
      this.deliver(this.stderrBuffer.subarray(0, this.stderrBuffer.length - keep), 'err');
      this.stderrBuffer = Buffer.from(this.stderrBuffer.subarray(this.stderrBuffer.length - keep));
      return;
    }
    const lineEnd = this.stderrBuffer.indexOf(0x0a, at);
    if (lineEnd === -1) return;
    this.deliver(this.stderrBuffer.subarray(0, at), 'err');
    this.stderrBuffer = Buffer.alloc(0);
    this.stderrDone = true;
    this.finish();
  }

  private deliver(data: Buffer, which: 'out' | 'err'): void {
    if (!data.length || !this.waiter) return;
    if (this.waiter.kind === 'command') (which === 'out' ? this.waiter.out : this.waiter.err).write(Buffer.from(data));
    else if (this.waiter.kind === 'query' && which === 'out') this.waiter.chunks.push(Buffer.from(data));
  }

  private onEnd(): void {
    if (this.dead) return;
    this.dead = true;
    this.exitCode = null;
    this.stdoutDone = true;
    this.stderrDone = true;
    this.finish();
  }

  /** Ends the shell: its stdin closes and its loop ends; output still on the way is dropped. */
  close(): void {
    if (!this.dead) {
      this.stream.end();
      this.onEnd();
    }
    // Keep reading what processes left behind still write, so they never block on a full pipe.
    (this.stream as NodeJS.ReadableStream).resume();
  }
}
