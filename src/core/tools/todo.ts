// `todowrite` / `todoread`: the session's task list, kept by the session (ctx.todos) so the
// UI can show it and it survives across turns. todowrite always replaces the whole list,
// which keeps the model's view and the stored list identical.
import * as z from 'zod';
import { lazySchema } from '../lazy-schema.js';
import { once } from '../once.js';
import { defineTool, ToolError, type Todo } from './types.js';

const MARK: Record<Todo['status'], string> = { pending: '[ ]', in_progress: '[~]', completed: '[x]', cancelled: '[-]' };

export function renderTodos(todos: readonly Todo[]): string {
  if (todos.length === 0) return 'The todo list is empty.';
  return todos.map((t) => `${MARK[t.status]} ${t.content} (id: ${t.id}, ${t.status})`).join('\n');
}

const todoSchema = once(() =>
  z.object({
    content: z.string().min(1).describe('What needs to be done, as a short imperative sentence.'),
    status: z
      .enum(['pending', 'in_progress', 'completed', 'cancelled'])
      .describe('pending, in_progress (only one task at a time), completed or cancelled.'),
    id: z.string().min(1).describe('A stable unique identifier for the task, e.g. "1", "2"...'),
  }),
);

export const todowriteTool = defineTool({
  name: 'todowrite',
  description: `Create or update the task list for this session. Send the complete list every time: it replaces the previous one.

Use it for work with several steps (three or more), when the user gives a list of things to do, or when new sub-tasks appear along the way; skip it for a single trivial task or a purely conversational request.
- Mark a task in_progress before starting it and keep only one task in_progress at a time.
- Mark a task completed as soon as it is fully done (not when tests fail or work is partial); cancel tasks that are no longer relevant.
- Keep ids stable across updates so progress can be followed.`,
  parameters: lazySchema(() =>
    z.object({
      todos: z.array(todoSchema()).describe('The full, updated todo list.'),
    }),
  ),
  readOnly: false,
  fileChanges: 'none',
  async execute(args, ctx) {
    const ids = new Set<string>();
    for (const todo of args.todos) {
      if (ids.has(todo.id)) throw new ToolError(`Duplicate todo id "${todo.id}"; every task needs a unique id.`);
      ids.add(todo.id);
    }
    const todos: Todo[] = args.todos.map((t) => ({ id: t.id, content: t.content, status: t.status }));
    ctx.todos.set(todos);
    const count = (status: Todo['status']): number => todos.filter((t) => t.status === status).length;
    const summary = `Todo list updated: ${todos.length} task${todos.length === 1 ? '' : 's'} (${count('completed')} completed, ${count('in_progress')} in progress, ${count('pending')} pending${count('cancelled') ? `, ${count('cancelled')} cancelled` : ''}).`;
    return { output: todos.length ? `${summary}\n${renderTodos(todos)}` : summary, metadata: { todos } };
  },
});

export const todoreadTool = defineTool({
  name: 'todoread',
  description:
    "Read this session's current todo list (status and id of every task). Use it to check what remains before moving on or finishing.",
  parameters: lazySchema(() => z.object({})),
  readOnly: true,
  async execute(_args, ctx) {
    const todos = ctx.todos.get();
    return { output: renderTodos(todos), metadata: { todos } };
  },
});
