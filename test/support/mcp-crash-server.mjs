// A tiny stdio MCP server for tests: `ok` answers, `crash` kills the server in the middle of
// the call (the client must turn that into an error, not wait forever), `image` returns a
// picture and structured content, and `add_tool` announces a new tool (tools/list_changed).
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { Buffer } from 'node:buffer';
import { setTimeout } from 'node:timers';
import { z } from 'zod';

const server = new McpServer({ name: 'crashy', version: '1.0.0' }, { capabilities: { tools: { listChanged: true } } });
server.registerTool('ok', { description: 'Answers ok.', inputSchema: { word: z.string() } }, async ({ word }) => ({
  content: [{ type: 'text', text: `ok ${word}` }],
}));
server.registerTool('crash', { description: 'Exits during the call.' }, async () => {
  setTimeout(() => process.exit(3), 20);
  return new Promise(() => {});
});
server.registerTool('image', { description: 'A picture and data.' }, async () => ({
  content: [{ type: 'image', data: Buffer.from('0123456789').toString('base64'), mimeType: 'image/png' }],
  structuredContent: { width: 2, height: 5 },
}));
server.registerTool('big', { description: 'Too much output.' }, async () => ({ content: [{ type: 'text', text: 'x'.repeat(50_000) }] }));
server.registerTool('fail', { description: 'Reports an error.' }, async () => ({ content: [{ type: 'text', text: 'it broke' }], isError: true }));
server.registerTool('add_tool', { description: 'Adds a tool named later.' }, async () => {
  server.registerTool('later', { description: 'Added at run time.' }, async () => ({ content: [{ type: 'text', text: 'late' }] }));
  return { content: [{ type: 'text', text: 'added' }] };
});
process.stderr.write('crashy server ready\n');
await server.connect(new StdioServerTransport());
