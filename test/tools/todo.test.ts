import { describe, expect, it } from 'vitest';
import { todoreadTool, todowriteTool } from '../../src/core/tools/todo.js';
import { ToolError } from '../../src/core/tools/types.js';
import { makeContext, removeDir, run } from './context.js';

describe('todowrite / todoread', () => {
  it('round-trips the list through the session', async () => {
    const ctx = makeContext();
    removeDir(ctx.cwd);
    expect((await run(todoreadTool, {}, ctx)).output).toBe('The todo list is empty.');
    const todos = [
      { id: '1', content: 'Write the parser', status: 'completed' },
      { id: '2', content: 'Test the parser', status: 'in_progress' },
      { id: '3', content: 'Document it', status: 'pending' },
    ];
    const written = await run(todowriteTool, { todos }, ctx);
    expect(written.output).toContain('3 tasks (1 completed, 1 in progress, 1 pending)');
    expect(ctx.todos.get()).toEqual(todos);
    const read = await run(todoreadTool, {}, ctx);
    expect(read.output).toBe(
      ['[x] Write the parser (id: 1, completed)', '[~] Test the parser (id: 2, in_progress)', '[ ] Document it (id: 3, pending)'].join(
        '\n',
      ),
    );
    await run(todowriteTool, { todos: [{ id: '3', content: 'Document it', status: 'cancelled' }] }, ctx);
    expect(ctx.todos.get()).toEqual([{ id: '3', content: 'Document it', status: 'cancelled' }]);
  });

  it('rejects duplicate ids and unknown statuses', async () => {
    const ctx = makeContext();
    removeDir(ctx.cwd);
    const dup = [
      { id: '1', content: 'a', status: 'pending' },
      { id: '1', content: 'b', status: 'pending' },
    ];
    await expect(run(todowriteTool, { todos: dup }, ctx)).rejects.toBeInstanceOf(ToolError);
    expect(() => todowriteTool.parameters.parse({ todos: [{ id: '1', content: 'a', status: 'done' }] })).toThrow();
    expect(ctx.todos.get()).toEqual([]);
  });
});
