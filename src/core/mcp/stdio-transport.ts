// The stdio transport for `local` MCP servers. The SDK's own one kills only the process it
// spawned; servers are often started through `npx`, `uvx` or a shell script, whose real
// server is a grandchild that would outlive us. Here the server leads its own process group
// (as bash commands do), and stopping it signals the whole group. Framing (one JSON-RPC
// message per line) is the SDK's ReadBuffer / serializeMessage.
//
// Contract
// - `start()` resolves once the process is spawned, rejects when it cannot be (no such program).
// - `onclose` fires once, when the process has exited or `close()` finished.
// - `close()` ends stdin, then SIGTERM and finally SIGKILL to the group; never hangs.
import { spawn, type ChildProcess } from 'node:child_process';
import { ReadBuffer, serializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { killCommand, markerEnv, newMarker } from '../tools/process.js';
import { forgetOnExit, signalOnExit } from '../exit-reaper.js';

export interface StdioServerOptions {
  command: string;
  args: string[];
  env: Record<string, string>;
  cwd: string;
  /** Each chunk of the server's stderr (logs, banners): kept for error messages, never shown raw. */
  onStderr(text: string): void;
}

/** Environment variables a server needs to run at all; API keys and tokens stay out unless configured. */
const INHERITED_ENV = ['HOME', 'LOGNAME', 'PATH', 'SHELL', 'TERM', 'USER', 'LANG', 'LC_ALL', 'TMPDIR', 'XDG_CONFIG_HOME', 'XDG_DATA_HOME', 'XDG_CACHE_HOME', 'SystemRoot', 'APPDATA', 'USERPROFILE'];

export function serverEnvironment(extra: Record<string, string> | undefined, env: NodeJS.ProcessEnv = process.env): Record<string, string> {
  const out: Record<string, string> = {};
  for (const key of INHERITED_ENV) {
    const value = env[key];
    if (value !== undefined && !value.startsWith('()')) out[key] = value;
  }
  return { ...out, ...(extra ?? {}) };
}

export class StdioServerTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  private child: ChildProcess | undefined;
  private readonly buffer = new ReadBuffer();
  /** Marks every process of this server, so those that leave its group are ended too. */
  private readonly marker = newMarker();
  private closed = false;

  constructor(private readonly options: StdioServerOptions) {}

  get pid(): number | undefined {
    return this.child?.pid;
  }

  start(): Promise<void> {
    return new Promise((resolve, reject) => {
      const child = spawn(this.options.command, this.options.args, {
        cwd: this.options.cwd,
        // The marker finds the server's processes that leave its group (npx, shell scripts).
        env: { ...this.options.env, ...markerEnv(this.marker) },
        stdio: ['pipe', 'pipe', 'pipe'],
        detached: process.platform !== 'win32',
        windowsHide: true,
      });
      this.child = child;
      child.once('error', (err) => {
        if (child.pid === undefined) reject(new Error(`cannot start "${this.options.command}": ${err.message}`));
        else this.onerror?.(err);
      });
      child.once('spawn', () => {
        if (child.pid !== undefined) signalOnExit(child.pid, 'SIGTERM');
        resolve();
      });
      child.once('close', () => this.finish());
      child.stdout!.on('data', (chunk: Buffer) => {
        this.buffer.append(chunk);
        for (;;) {
          let message: JSONRPCMessage | null;
          try {
            message = this.buffer.readMessage();
          } catch (err) {
            this.onerror?.(err instanceof Error ? err : new Error(String(err)));
            continue;
          }
          if (!message) break;
          this.onmessage?.(message);
        }
      });
      child.stderr!.on('data', (chunk: Buffer) => this.options.onStderr(chunk.toString('utf8')));
      // A server that exits while we write would raise EPIPE here; 'close' reports the exit.
      child.stdin!.on('error', () => {});
    });
  }

  send(message: JSONRPCMessage): Promise<void> {
    return new Promise((resolve, reject) => {
      const stdin = this.child?.stdin;
      if (!stdin || this.closed || !stdin.writable) {
        reject(new Error('the server is not running'));
        return;
      }
      if (stdin.write(serializeMessage(message))) resolve();
      else stdin.once('drain', () => resolve());
    });
  }

  async close(): Promise<void> {
    const child = this.child;
    if (!child || this.closed) return;
    child.stdin?.end();
    const pid = child.pid;
    if (pid !== undefined && child.exitCode === null && child.signalCode === null) {
      // A well-behaved server exits when its stdin closes; give it a moment first.
      const exited = await new Promise<boolean>((resolve) => {
        const timer = setTimeout(() => resolve(false), 500);
        child.once('close', () => {
          clearTimeout(timer);
          resolve(true);
        });
      });
      if (!exited || process.platform !== 'win32') await killCommand({ pgid: pid, marker: this.marker }, 1500);
    }
    this.finish();
  }

  private finish(): void {
    if (this.closed) return;
    this.closed = true;
    if (this.child?.pid !== undefined) forgetOnExit(this.child.pid);
    this.buffer.clear();
    this.onclose?.();
  }
}
