// The static tools' input schemas converted at build time (scripts/tool-schemas.mjs →
// src/core/tools/input-schemas.ts): the build covers every built-in tool, `websearch` and
// `ask_user` and gives exactly what converting at start-up gives; a request uses an entry only
// for the very parameters object it was made from, so a tool of the same name with other
// parameters (an MCP server's `read`, a changed tool) is still converted. `task`'s entry is a
// template: each session's task tool gets it with its own agents, exactly as converted.
import type { BuildOptions } from 'esbuild';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { toolSchemas } from '../../scripts/tool-schemas.mjs';
import type { AgentDefinition } from '../../src/core/agents/index.js';
import { REPO_ROOT } from '../support/repo-root.js';

const global = globalThis as { __OC_TOOL_SCHEMAS__?: Record<string, Record<string, unknown>> };

afterEach(() => {
  delete global.__OC_TOOL_SCHEMAS__;
  vi.resetModules();
});

async function buildTable(): Promise<Record<string, Record<string, unknown>>> {
  const options: BuildOptions = { bundle: true, platform: 'node', target: 'node20', logLevel: 'warning', define: {} };
  return JSON.parse(JSON.stringify(await toolSchemas(REPO_ROOT, options))) as Record<string, Record<string, unknown>>;
}

/** The modules loaded afresh, so that the table is read as set now. */
async function fresh() {
  vi.resetModules();
  const schemas = await import('../../src/core/tools/input-schemas.js');
  const { BUILTIN_TOOLS } = await import('../../src/core/tools/index.js');
  const { toolSpecs } = await import('../../src/core/agent/loop.js');
  const { askUserTool } = await import('../../src/core/subagents/ask-user-tool.js');
  const { createTaskTool } = await import('../../src/core/subagents/task-tool.js');
  const { builtSchema } = await import('../../src/core/lazy-schema.js');
  const { createWebsearchTool } = await import('../../src/core/tools/websearch.js');
  const websearch = createWebsearchTool(() => Promise.reject(new Error('not searched in this test')));
  return { ...schemas, tools: [...BUILTIN_TOOLS, websearch, askUserTool], toolSpecs, createTaskTool, builtSchema };
}

describe("the static tools' input schemas converted when building", () => {
  it('cover every built-in tool, websearch and ask_user, and equal converting them at start-up', async () => {
    const table = await buildTable();
    const { tools, convertInputSchema } = await fresh();
    expect(Object.keys(table).sort()).toEqual([...tools.map((t) => t.name), 'task'].sort());
    for (const tool of tools) expect(table[tool.name], tool.name).toStrictEqual(convertInputSchema(tool.parameters));
  });

  it("give each session's task tool the schema converting it gives, with its own agents, without building its zod schema", async () => {
    global.__OC_TOOL_SCHEMAS__ = await buildTable();
    const { createTaskTool, inputSchemaOf, convertInputSchema } = await fresh();
    const { schemaIsBuilt } = await import('../../src/core/lazy-schema.js');
    const agent = (name: string): AgentDefinition => ({ name, description: `the ${name} agent`, mode: 'subagent', prompt: '', hidden: false, disable: false, source: 'config' });
    const run = () => Promise.reject(new Error('no task runs in this test'));
    for (const [names, denied] of [[[], []], [['explore'], []], [['general', 'explore', 'my-agent "quoted"', 'fork'], ['review']]] as const) {
      const tool = createTaskTool(names.map(agent), run, denied);
      const fromTemplate = inputSchemaOf(tool);
      expect(schemaIsBuilt(tool.parameters), names.join()).toBe(false);
      expect(fromTemplate, names.join()).toStrictEqual(convertInputSchema(tool.parameters));
      expect((fromTemplate.properties as { subagent_type: { enum: string[] } }).subagent_type.enum).toEqual([...names.filter((n) => n !== 'fork'), 'fork']);
    }
  });

  it("send the static tools' schemas without building any tool's zod schema", async () => {
    global.__OC_TOOL_SCHEMAS__ = await buildTable();
    const { tools, toolSpecs } = await fresh();
    const { schemaIsBuilt } = await import('../../src/core/lazy-schema.js');
    expect(toolSpecs(tools)).toHaveLength(tools.length);
    expect(tools.filter((tool) => schemaIsBuilt(tool.parameters)).map((tool) => tool.name)).toEqual([]);
  });

  it('give the same request tools as converting every tool', async () => {
    const converted = (await fresh()).toolSpecs((await fresh()).tools);
    global.__OC_TOOL_SCHEMAS__ = await buildTable();
    const { tools, toolSpecs } = await fresh();
    expect(toolSpecs(tools)).toStrictEqual(converted);
  });

  it('are used only for the very parameters they were made from', async () => {
    const table = await buildTable();
    // Marked, so that the test can tell an entry from a conversion.
    global.__OC_TOOL_SCHEMAS__ = Object.fromEntries(Object.entries(table).map(([name, schema]) => [name, { ...schema, description: `from the build: ${name}` }]));
    const { tools, inputSchemaOf } = await fresh();
    const read = tools.find((t) => t.name === 'read')!;
    expect(inputSchemaOf(read).description).toBe('from the build: read');
    const lookalike = { name: 'read', parameters: z.object({ url: z.string() }) };
    expect(inputSchemaOf(lookalike)).toStrictEqual({ type: 'object', properties: { url: { type: 'string' } }, required: ['url'] });
    const unknown = { name: 'mcp__files__read', parameters: z.object({ path: z.string() }) };
    expect(inputSchemaOf(unknown).description).toBeUndefined();
  });
});
