// All MCP servers of one engine: started together the first time a session needs its tool
// list, shared by every session of that engine (sub-agents included, so a child never starts
// a second server process), and stopped by `close()`.
//
// Contract
// - `start()` is idempotent: servers start in parallel, each within its timeout; a server
//   that fails becomes state `failed` and one warning line, and the others go on.
// - `tools()` is the current set of `mcp__<server>__<tool>` tools of connected servers; it
//   changes when a server announces `tools/list_changed` or fails (`version` counts changes).
// - A call to a server that has failed is an error result at once; a server that dies
//   mid-call turns that call into an error result and is marked failed.
import type { McpServerConfig } from './config.js';
import type { McpConnection, McpToolInfo } from './connection.js';
import { createMcpTool } from './tool.js';
import type { Tool } from '../tools/types.js';

export type McpServerStatus = 'pending' | 'connected' | 'failed' | 'disabled';

export interface McpServerState {
  name: string;
  type: McpServerConfig['type'];
  status: McpServerStatus;
  error?: string;
  /** Our names for its tools, with the server's own name. */
  tools: Array<{ name: string; server_tool: string; description?: string }>;
}

/** One live session's own servers (its agent file's inline `mcpServers`), as `/mcp` shows them. */
export interface SessionMcpServers {
  session_id: string;
  agent: string;
  servers: McpServerState[];
}

export interface McpManagerOptions {
  cwd: string;
  /**
   * For `local` servers with `sandbox: true` (DESIGN §19): the wrapper that starts them inside
   * the sandbox, or why there is none (then they are not started).
   */
  sandbox?: () => { wrap: (program: string, args: readonly string[]) => { program: string; args: string[] } } | { unavailable: string };
  /** Per-server start timeout unless the server's own `timeout` says otherwise. */
  timeoutMs?: number;
  clientVersion?: string;
}

export const DEFAULT_MCP_TIMEOUT_MS = 10_000;

interface Server {
  name: string;
  config: McpServerConfig;
  status: McpServerStatus;
  error?: string;
  connection?: McpConnection;
  tools: Tool[];
  infos: readonly McpToolInfo[];
}

export class McpManager {
  private readonly servers: Server[];
  private starting: Promise<string[]> | undefined;
  private closed = false;
  private readonly closing = new AbortController();
  private changeCount = 0;
  private readonly listeners = new Set<() => void>();

  constructor(
    config: Readonly<Record<string, McpServerConfig>>,
    private readonly options: McpManagerOptions,
  ) {
    this.servers = Object.entries(config).map(([name, server]) => ({
      name,
      config: server,
      status: server.enabled === false ? 'disabled' : 'pending',
      tools: [],
      infos: [],
    }));
  }

  /** True when any server is configured and enabled: only then is there anything to start. */
  get active(): boolean {
    return this.servers.some((s) => s.status !== 'disabled');
  }

  /** Grows whenever the tool set changes. */
  get version(): number {
    return this.changeCount;
  }

  /** Starts every enabled server once; resolves with the warning lines of those that failed. */
  start(): Promise<string[]> {
    this.starting ??= this.startAll();
    return this.starting;
  }

  tools(): Tool[] {
    return this.servers.flatMap((s) => (s.status === 'connected' ? s.tools : []));
  }

  states(): McpServerState[] {
    return this.servers.map((s) => ({
      name: s.name,
      type: s.config.type,
      status: s.status,
      ...(s.error ? { error: s.error } : {}),
      tools: s.status === 'connected' ? s.tools.map((t, i) => ({ name: t.name, server_tool: s.infos[i]!.name, ...(s.infos[i]!.description ? { description: s.infos[i]!.description } : {}) })) : [],
    }));
  }

  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Stops every server; safe to call twice, and while servers are still starting. */
  async close(): Promise<void> {
    this.closed = true;
    this.closing.abort();
    await this.starting?.catch(() => []);
    await Promise.all(this.servers.map((s) => s.connection?.close()));
    for (const s of this.servers) s.connection = undefined;
  }

  private async startAll(): Promise<string[]> {
    const pending = this.servers.filter((s) => s.status === 'pending');
    if (pending.length === 0) return [];
    // The SDK loads only now, not when a command that never starts a server runs.
    const { openConnection } = await import('./connection.js');
    const warnings = await Promise.all(
      pending.map(async (server) => {
        try {
          const wrap = server.config.type === 'local' && server.config.sandbox ? this.sandboxWrapper() : undefined;
          const connection = await openConnection(server.name, server.config, {
            cwd: this.options.cwd,
            wrap,
            timeoutMs: server.config.timeout ?? this.options.timeoutMs ?? DEFAULT_MCP_TIMEOUT_MS,
            clientVersion: this.options.clientVersion ?? '0.0.0',
            signal: this.closing.signal,
            onToolsChanged: (infos) => this.setTools(server, infos),
            onClosed: (why) => this.fail(server, why),
          });
          if (this.closed) {
            await connection.close();
            return undefined;
          }
          server.connection = connection;
          server.status = 'connected';
          this.setTools(server, connection.tools);
          return undefined;
        } catch (err) {
          server.status = 'failed';
          server.error = err instanceof Error ? err.message : String(err);
          return `Warning: MCP server "${server.name}" failed to start: ${server.error}`;
        }
      }),
    );
    return warnings.filter((w): w is string => w !== undefined);
  }

  private setTools(server: Server, infos: readonly McpToolInfo[]): void {
    // Two tools whose names sanitise alike would be ambiguous: the first keeps the name.
    const taken = new Set(this.servers.filter((s) => s !== server).flatMap((s) => s.tools.map((t) => t.name)));
    const kept: McpToolInfo[] = [];
    const tools: Tool[] = [];
    for (const info of infos) {
      const tool = createMcpTool(server.name, info, (name, args, signal) => this.call(server, name, args, signal));
      if (taken.has(tool.name)) continue;
      taken.add(tool.name);
      kept.push(info);
      tools.push(tool);
    }
    server.infos = kept;
    server.tools = tools;
    this.changed();
  }

  private async call(server: Server, tool: string, args: Record<string, unknown>, signal: AbortSignal) {
    const connection = server.connection;
    if (server.status !== 'connected' || !connection) {
      throw new Error(`MCP server "${server.name}" is not connected${server.error ? ` (${server.error})` : ''}.`);
    }
    try {
      return await connection.call(tool, args, signal);
    } catch (err) {
      if ((server.status as McpServerStatus) === 'failed') throw new Error(`MCP server "${server.name}" stopped during the call (${server.error ?? 'connection closed'}).`);
      throw err;
    }
  }

  /** Throws (failing that server's start) when the sandbox it asks for is unavailable. */
  private sandboxWrapper(): (program: string, args: readonly string[]) => { program: string; args: string[] } {
    const sandbox = this.options.sandbox?.() ?? { unavailable: 'it asks for the sandbox, which this program was started without' };
    if ('unavailable' in sandbox) throw new Error(`not started: ${sandbox.unavailable}`);
    return sandbox.wrap;
  }

  private fail(server: Server, why: string): void {
    if (this.closed || server.status !== 'connected') return;
    server.status = 'failed';
    server.error = why;
    server.connection = undefined;
    this.changed();
  }

  private changed(): void {
    this.changeCount++;
    for (const listener of this.listeners) listener();
  }
}
