// Remote MCP servers, built in the test with the SDK's own server classes: streamable HTTP
// (headers sent, tools listed and called through the tool the model would use), the older
// SSE transport reached by falling back, and an unreachable URL failing alone and quickly.
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { SSEServerTransport } from '@modelcontextprotocol/sdk/server/sse.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { McpManager } from '../../src/core/mcp/index.js';
import type { Tool, ToolContext } from '../../src/core/tools/types.js';
import { FileViews } from '../../src/core/workspace/file-views.js';

const servers: Server[] = [];
const managers: McpManager[] = [];
afterEach(async () => {
  for (const m of managers.splice(0)) await m.close();
  for (const s of servers.splice(0)) await new Promise((r) => s.close(r));
});

function mcpServer(): McpServer {
  const server = new McpServer({ name: 'web', version: '1.0.0' });
  server.registerTool('add', { description: 'Adds two numbers.', inputSchema: { a: z.number(), b: z.number() } }, async ({ a, b }) => ({
    content: [{ type: 'text', text: String(a + b) }],
  }));
  return server;
}

async function listen(handler: (req: IncomingMessage, res: import('node:http').ServerResponse) => void): Promise<string> {
  const server = createServer(handler);
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

function context(asked: string[]): ToolContext {
  return {
    sessionId: 's',
    cwd: process.cwd(),
    agent: 'build',
    callId: 'c',
    signal: new AbortController().signal,
    ask: async (request) => {
      asked.push(request.permission);
    },
    progress: () => {},
    todos: { get: () => [], set: () => {} },
    fileViews: new FileViews(),
  };
}

async function call(tool: Tool, args: Record<string, unknown>, asked: string[] = []) {
  return tool.execute(args, context(asked));
}

describe('remote MCP servers', () => {
  it('speaks streamable HTTP with the configured headers', async () => {
    const auth: Array<string | undefined> = [];
    const url = await listen((req, res) => {
      auth.push(req.headers.authorization);
      // Stateless: a fresh server and transport per request, as the SDK's examples do.
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
      const server = mcpServer();
      res.on('close', () => void transport.close().then(() => server.close()));
      void server.connect(transport).then(() => transport.handleRequest(req, res));
    });
    const manager = new McpManager({ web: { type: 'remote', url: `${url}/mcp`, headers: { Authorization: 'Bearer t0k' } } }, { cwd: process.cwd() });
    managers.push(manager);
    expect(await manager.start()).toEqual([]);
    const [tool] = manager.tools();
    expect(tool!.name).toBe('mcp__web__add');
    const asked: string[] = [];
    expect(await call(tool!, { a: 2, b: 40 }, asked)).toMatchObject({ output: '42' });
    expect(asked).toEqual(['mcp__web__add']);
    expect(auth.length).toBeGreaterThan(0);
    expect(auth.every((a) => a === 'Bearer t0k')).toBe(true);
    // Bad arguments come back from the server as an error result, not a crash.
    const bad = await call(tool!, { a: 'x' });
    expect(bad.isError).toBe(true);
  });

  it('falls back to the SSE transport for servers that only speak it', async () => {
    const transports = new Map<string, SSEServerTransport>();
    const url = await listen((req, res) => {
      if (req.method === 'GET' && req.url === '/sse') {
        const transport = new SSEServerTransport('/messages', res);
        transports.set(transport.sessionId, transport);
        void mcpServer().connect(transport);
        return;
      }
      if (req.method === 'POST' && req.url?.startsWith('/messages')) {
        const id = new URL(req.url, 'http://x').searchParams.get('sessionId') ?? '';
        const transport = transports.get(id);
        if (transport) {
          void transport.handlePostMessage(req, res);
          return;
        }
      }
      res.writeHead(405).end();
    });
    const manager = new McpManager({ legacy: { type: 'remote', url: `${url}/sse` } }, { cwd: process.cwd() });
    managers.push(manager);
    expect(await manager.start()).toEqual([]);
    expect(await call(manager.tools()[0]!, { a: 1, b: 1 })).toMatchObject({ output: '2' });
  });

  it('reports an unreachable server as one warning and keeps the others', async () => {
    const manager = new McpManager(
      {
        gone: { type: 'remote', url: 'http://127.0.0.1:9/mcp' },
        slow: { type: 'local', command: [process.execPath, '-e', 'setInterval(() => {}, 1000)'], timeout: 300 },
      },
      { cwd: process.cwd() },
    );
    managers.push(manager);
    const warnings = await manager.start();
    expect(warnings).toHaveLength(2);
    expect(warnings[0]).toBe('Warning: MCP server "gone" failed to start: http://127.0.0.1:9/mcp: fetch failed (bad port)');
    expect(warnings[1]).toBe('Warning: MCP server "slow" failed to start: did not start within 300 ms');
    expect(manager.states().map((s) => s.status)).toEqual(['failed', 'failed']);
  });
});
