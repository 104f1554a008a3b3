import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { BUILTIN_TOOLS } from '../../src/core/tools/index.js';

interface JsonSchema {
  type?: string;
  description?: string;
  properties?: Record<string, JsonSchema>;
  items?: JsonSchema;
}

describe('BUILTIN_TOOLS', () => {
  it('lists the tools in the documented order with the right read-only flags', () => {
    expect(BUILTIN_TOOLS.map((t) => t.name)).toEqual([
      'read',
      'write',
      'edit',
      'list',
      'glob',
      'grep',
      'bash',
      'bash_output',
      'kill_shell',
      'webfetch',
      'todowrite',
      'todoread',
      'task_list',
    ]);
    const readOnly = BUILTIN_TOOLS.filter((t) => t.readOnly).map((t) => t.name);
    expect(readOnly).toEqual(['read', 'list', 'glob', 'grep', 'bash_output', 'webfetch', 'todoread']);
  });

  it('exposes the documented parameters, each described, as JSON Schema', () => {
    const expected: Record<string, string[]> = {
      read: ['file_path', 'offset', 'limit'],
      write: ['file_path', 'content'],
      edit: ['file_path', 'old_string', 'new_string', 'replace_all'],
      list: ['path', 'ignore'],
      glob: ['pattern', 'path'],
      grep: ['pattern', 'path', 'glob', 'output_mode', '-i'],
      bash: ['command', 'timeout', 'description', 'dangerously_disable_sandbox', 'run_in_background'],
      bash_output: ['shell_id'],
      kill_shell: ['shell_id'],
      webfetch: ['url', 'format'],
      todowrite: ['todos'],
      todoread: [],
      task_list: ['action', 'id', 'title', 'description', 'blocked_by', 'owner', 'status', 'result'],
    };
    for (const tool of BUILTIN_TOOLS) {
      expect(tool.description.length, tool.name).toBeGreaterThan(80);
      const schema = z.toJSONSchema(tool.parameters) as JsonSchema;
      expect(schema.type).toBe('object');
      const props = schema.properties ?? {};
      expect(Object.keys(props), tool.name).toEqual(expected[tool.name]);
      const check = (s: JsonSchema, where: string): void => {
        expect(s.description, where).toBeTruthy();
        for (const [k, v] of Object.entries(s.properties ?? {})) check(v, `${where}.${k}`);
        if (s.items?.properties) for (const [k, v] of Object.entries(s.items.properties)) check(v, `${where}[].${k}`);
      };
      for (const [key, prop] of Object.entries(props)) check(prop, `${tool.name}.${key}`);
    }
  });
});
