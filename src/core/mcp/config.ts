// The shapes of MCP server settings (DESIGN §3, §14): OpenCode's `mcp` config key, and
// Claude Code's project file `.mcp.json`, both turned into one McpServerConfig per server.
// This module holds only schemas and file reading, so loading the configuration never
// loads the MCP SDK; the schemas are built the first time a file or agent sets a server.
import { join } from 'node:path';
import * as z from 'zod';
import { once } from '../once.js';
import { describeProblem, readSmallFileSync } from '../tools/regular-file.js';

// Every schema here is built on first use: most starts configure no MCP server, and building
// them at import cost every start ~2 ms (a profile of one `run`).
const stringMap = () => z.record(z.string(), z.string());

const timeout = () => z.number().int().min(100).max(600_000).optional().describe('Milliseconds to wait for the server to start and list its tools.');

export const localMcpServerSchema = once(() =>
  z.strictObject({
    type: z.literal('local'),
    command: z.array(z.string()).min(1, 'must name the program to start, e.g. ["npx", "-y", "some-mcp-server"]'),
    environment: stringMap().optional(),
    enabled: z.boolean().optional(),
    timeout: timeout(),
    /** Run the server inside the sandbox (DESIGN §19), with the sandbox's mode or `workspace-write` when it is off. */
    sandbox: z.boolean().optional(),
  }),
);

export const remoteMcpServerSchema = once(() =>
  z.strictObject({
    type: z.literal('remote'),
    url: z.url({ protocol: /^https?$/, error: 'must be an http:// or https:// URL' }),
    headers: stringMap().optional(),
    enabled: z.boolean().optional(),
    timeout: timeout(),
    /** `auto` tries streamable HTTP first and falls back to SSE; `.mcp.json` names one. */
    transport: z.enum(['auto', 'http', 'sse']).optional(),
  }),
);

export const mcpServerConfigSchema = once(() => z.discriminatedUnion('type', [localMcpServerSchema(), remoteMcpServerSchema()]));
/** The `mcp` config key: server name → settings. */
export const mcpConfigSchema = once(() => z.record(z.string().min(1), mcpServerConfigSchema()));

export type McpServerConfig = z.output<ReturnType<typeof mcpServerConfigSchema>>;
export type LocalMcpServerConfig = z.output<ReturnType<typeof localMcpServerSchema>>;
export type RemoteMcpServerConfig = z.output<ReturnType<typeof remoteMcpServerSchema>>;

export const MCP_JSON = '.mcp.json';

const mcpJsonLocalSchema = once(() =>
  z.looseObject({
    type: z.literal('stdio').optional(),
    command: z.string().min(1),
    args: z.array(z.string()).optional(),
    env: stringMap().optional(),
  }),
);

const mcpJsonServerSchema = once(() =>
  z.union([
    mcpJsonLocalSchema(),
    z.looseObject({
      type: z.enum(['http', 'sse']),
      url: z.string(),
      headers: stringMap().optional(),
    }),
  ]),
);

const mcpJsonSchema = once(() => z.looseObject({ mcpServers: z.record(z.string().min(1), mcpJsonServerSchema()).optional() }));

export interface McpJsonResult {
  servers: Record<string, McpServerConfig>;
  warnings: string[];
}

/** The server names a project's `.mcp.json` declares (for the untrusted-project notice); none when unreadable. */
export function mcpJsonServerNames(folder: string): string[] {
  const data = readJson(join(folder, MCP_JSON));
  if (!data.ok || typeof data.value !== 'object' || data.value === null) return [];
  const servers = (data.value as { mcpServers?: unknown }).mcpServers;
  return typeof servers === 'object' && servers !== null ? Object.keys(servers) : [];
}

/**
 * Claude Code's `.mcp.json` in `folder`, as our server configs. `${VAR}` and
 * `${VAR:-default}` expand from `env` (Claude Code does the same). A file that is absent gives
 * nothing; one that is broken gives one warning and no servers; a bad entry is skipped alone.
 */
export function readMcpJson(folder: string, env: NodeJS.ProcessEnv): McpJsonResult {
  const file = join(folder, MCP_JSON);
  const data = readJson(file);
  if (!data.ok) return { servers: {}, warnings: data.error ? [`${file}: ${data.error}`] : [] };
  const parsed = mcpJsonSchema().safeParse(data.value);
  if (!parsed.success) return { servers: {}, warnings: [`${file}: expected {"mcpServers": {"<name>": {...}}}.`] };
  const servers: Record<string, McpServerConfig> = {};
  const warnings: string[] = [];
  const raw = (data.value as { mcpServers?: Record<string, unknown> }).mcpServers ?? {};
  for (const [name, value] of Object.entries(raw)) {
    const entry = claudeServerConfig(value, env);
    if ('config' in entry) servers[name] = entry.config;
    else warnings.push(`${file}: mcpServers.${name}${entry.problem}; server skipped.`);
  }
  return { servers, warnings };
}

/**
 * One server in Claude Code's form (`{command, args, env}` or `{type: "http"|"sse", url,
 * headers}`), as our config, `${VAR}` expanded from `env`; or what is wrong with it, as a
 * phrase that follows the server's key (`: expected …`, `.url: must be …`).
 */
export function claudeServerConfig(value: unknown, env: NodeJS.ProcessEnv): { config: McpServerConfig } | { problem: string } {
  const entry = mcpJsonServerSchema().safeParse(value);
  if (!entry.success) return { problem: ': expected {"command", "args", "env"} or {"type": "http"|"sse", "url", "headers"}' };
  const server = entry.data;
  const expand = (text: string) => expandVars(text, env);
  if (server.type !== 'http' && server.type !== 'sse') {
    const local = mcpJsonLocalSchema().parse(server);
    return {
      config: {
        type: 'local',
        command: [expand(local.command), ...(local.args ?? []).map(expand)],
        ...(local.env ? { environment: mapValues(local.env, expand) } : {}),
      },
    };
  }
  const remote = remoteMcpServerSchema().safeParse({
    type: 'remote',
    url: expand(server.url),
    transport: server.type,
    ...(server.headers ? { headers: mapValues(server.headers, expand) } : {}),
  });
  return remote.success ? { config: remote.data } : { problem: '.url: must be an http:// or https:// URL' };
}

function readJson(file: string): { ok: true; value: unknown } | { ok: false; error?: string } {
  // A FIFO named .mcp.json would block the read forever, and a huge one cost every start.
  const read = readSmallFileSync(file);
  if (!('text' in read)) return read.problem === 'missing' ? { ok: false } : { ok: false, error: `${describeProblem(read)}.` };
  const text = read.text;
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch (err) {
    return { ok: false, error: `is not valid JSON (${(err as Error).message}).` };
  }
}

function mapValues(map: Record<string, string>, fn: (v: string) => string): Record<string, string> {
  return Object.fromEntries(Object.entries(map).map(([k, v]) => [k, fn(v)]));
}

function expandVars(text: string, env: NodeJS.ProcessEnv): string {
  return text.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g, (_m, name: string, fallback: string | undefined) => env[name] ?? fallback ?? '');
}
