// One live connection to an MCP server over the SDK: stdio for `local`, streamable HTTP with
// an SSE fallback for `remote`. Loaded on demand (the manager imports it when the first
// session needs tools), so commands that never use MCP never load the SDK.
//
// Contract
// - `openConnection` resolves once the server answered `initialize` and `tools/list`, or
//   rejects with one sentence (the server's last stderr line included for a stdio server)
//   after closing whatever it started; it never outlives `timeoutMs`.
// - A server that exits or drops the connection later calls `onClosed` once; calls in flight
//   reject instead of hanging.
// - `notifications/tools/list_changed` re-lists the tools and calls `onToolsChanged`.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { serverEnvironment, StdioServerTransport } from './stdio-transport.js';
import type { LocalMcpServerConfig, McpServerConfig, RemoteMcpServerConfig } from './config.js';
import type { McpCallResult } from './result.js';

export interface McpToolInfo {
  name: string;
  description?: string;
  inputSchema: Record<string, unknown>;
  readOnly: boolean;
}

export interface McpConnection {
  readonly tools: readonly McpToolInfo[];
  call(tool: string, args: Record<string, unknown>, signal: AbortSignal): Promise<McpCallResult>;
  close(): Promise<void>;
}

export interface ConnectOptions {
  cwd: string;
  /** Puts the sandbox program in front of a `local` server that asks for it (`sandbox: true`). */
  wrap?: ((program: string, args: readonly string[]) => { program: string; args: string[] }) | undefined;
  timeoutMs: number;
  clientVersion: string;
  /** Aborted when the manager closes: a server still starting is stopped at once. */
  signal?: AbortSignal;
  onToolsChanged(tools: readonly McpToolInfo[]): void;
  onClosed(reason: string): void;
}

/** A tool call may run long (a build, a browser); progress notifications keep it alive. */
const CALL_TIMEOUT_MS = 10 * 60_000;
const STDERR_TAIL = 2000;

export async function openConnection(name: string, config: McpServerConfig, opts: ConnectOptions): Promise<McpConnection> {
  const timeout = AbortSignal.timeout(opts.timeoutMs);
  const deadline = opts.signal ? AbortSignal.any([timeout, opts.signal]) : timeout;
  if (config.type === 'local') return connectLocal(name, config, opts, deadline);
  return connectRemote(name, config, opts, deadline);
}

async function connectLocal(name: string, config: LocalMcpServerConfig, opts: ConnectOptions, deadline: AbortSignal): Promise<McpConnection> {
  const [program, ...programArgs] = config.command as [string, ...string[]];
  const line = opts.wrap ? opts.wrap(program, programArgs) : { program, args: programArgs };
  const { program: command, args } = line;
  let stderr = '';
  const transport = new StdioServerTransport({
    command,
    args,
    // Only what a program needs to run (HOME, PATH, ...): API keys reach a server only when configured.
    env: serverEnvironment(config.environment),
    cwd: opts.cwd,
    // Servers print banners and logs on stderr; on the terminal they would tear the UI.
    onStderr: (text) => {
      stderr = (stderr + text).slice(-STDERR_TAIL);
    },
  });
  const lastLine = () => stderr.trim().split('\n').pop()?.trim();
  try {
    return await handshake(name, transport, opts, deadline);
  } catch (err) {
    const line = lastLine();
    throw new Error(`${reason(err)}${line ? ` (stderr: ${line})` : ''}`);
  }
}

async function connectRemote(name: string, config: RemoteMcpServerConfig, opts: ConnectOptions, deadline: AbortSignal): Promise<McpConnection> {
  const url = new URL(config.url);
  const requestInit: RequestInit = { headers: config.headers ?? {} };
  const mode = config.transport ?? 'auto';
  try {
    if (mode === 'sse') return await handshake(name, new SSEClientTransport(url, { requestInit }), opts, deadline);
    try {
      return await handshake(name, new StreamableHTTPClientTransport(url, { requestInit }), opts, deadline);
    } catch (err) {
      if (mode === 'http' || deadline.aborted) throw err;
      // Older servers speak only the 2024 HTTP+SSE transport.
      try {
        return await handshake(name, new SSEClientTransport(url, { requestInit }), opts, deadline);
      } catch {
        throw err;
      }
    }
  } catch (err) {
    throw new Error(`${url.origin}${url.pathname}: ${reason(err)}`);
  }
}

async function handshake(
  name: string,
  transport: Transport,
  opts: ConnectOptions,
  deadline: AbortSignal,
): Promise<McpConnection> {
  const client = new Client({ name: 'opencode-ink', version: opts.clientVersion }, { capabilities: {} });
  let closing = false;
  let ready = false;
  let tools: McpToolInfo[] = [];
  client.onclose = () => {
    if (ready && !closing) opts.onClosed(`server "${name}" closed the connection`);
  };
  // Errors also arrive through onclose or the pending request; nothing more to do here.
  client.onerror = () => {};
  const timedOut = new Promise<never>((_resolve, reject) => {
    const limit = opts.timeoutMs >= 1000 ? `${Math.round(opts.timeoutMs / 1000)} s` : `${opts.timeoutMs} ms`;
    const fail = () => reject(new Error(opts.signal?.aborted ? 'stopped while starting' : `did not start within ${limit}`));
    if (deadline.aborted) fail();
    deadline.addEventListener('abort', fail, { once: true });
  });
  timedOut.catch(() => {});
  try {
    await Promise.race([client.connect(transport, { signal: deadline }), timedOut]);
    tools = await Promise.race([listAll(client, deadline), timedOut]);
  } catch (err) {
    closing = true;
    await client.close().catch(() => {});
    throw err;
  }
  ready = true;
  if (client.getServerCapabilities()?.tools?.listChanged) {
    client.setNotificationHandler(ToolListChangedNotificationSchema, async () => {
      try {
        tools = await listAll(client);
        opts.onToolsChanged(tools);
      } catch {
        // The next change, or the next call's error, says more.
      }
    });
  }
  return {
    get tools() {
      return tools;
    },
    async call(tool, args, signal) {
      return client.callTool({ name: tool, arguments: args }, undefined, { signal, timeout: CALL_TIMEOUT_MS, resetTimeoutOnProgress: true });
    },
    async close() {
      closing = true;
      await client.close().catch(() => {});
    },
  };
}

async function listAll(client: Client, signal?: AbortSignal): Promise<McpToolInfo[]> {
  const tools: McpToolInfo[] = [];
  let cursor: string | undefined;
  // A server that keeps returning cursors cannot keep us here forever.
  for (let page = 0; page < 100; page++) {
    const result = await client.listTools(cursor ? { cursor } : {}, signal ? { signal } : {});
    for (const tool of result.tools) {
      tools.push({
        name: tool.name,
        ...(tool.description ? { description: tool.description } : {}),
        inputSchema: tool.inputSchema as Record<string, unknown>,
        readOnly: tool.annotations?.readOnlyHint === true,
      });
    }
    cursor = result.nextCursor;
    if (!cursor) break;
  }
  return tools;
}

/** The message, with the network cause `fetch failed` hides (ECONNREFUSED, a DNS failure). */
function reason(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  const cause = err.cause;
  if (!(cause instanceof Error)) return err.message;
  const code = (cause as NodeJS.ErrnoException).code;
  const detail = code ?? cause.message;
  return detail && !err.message.includes(detail) ? `${err.message} (${detail})` : err.message;
}
