// `opencode-ink sessions` and `sessions show <id>`: read-only views of the store.
import { ConfigError } from '../../core/errors.js';
import type { Message } from '../../core/messages.js';
import type { SessionRow, SessionTree } from '../../core/store/index.js';
import type { OpenedProject } from '../../core/project-context.js';
import { formatCost, formatTime, formatTokens, table } from '../format.js';
import { sessionIdFrom } from '../../core/pick-session.js';
import { terminalSafe } from '../../core/text/terminal-safe.js';
import { imageLabel } from '../../core/images/label.js';
import { teamSnapshot, type PublicTeamTask } from '../../core/team/index.js';

export function sessionsList(ctx: OpenedProject, opts: { all: boolean; json: boolean }): string {
  const rows = opts.all ? ctx.store.listAll() : ctx.store.listRoots();
  if (opts.json) return JSON.stringify(rows, null, 2);
  if (rows.length === 0) return 'No sessions yet.';
  // Titles come from prompts and models: no escape sequence reaches the terminal.
  return terminalSafe(table([
    ['ID', 'UPDATED', 'STATUS', 'AGENT', 'MODEL', 'TOKENS', 'COST', 'TITLE'],
    ...rows.map((s) => [
      // Listed depth-first: indenting by depth shows the tree.
      `${'  '.repeat(opts.all ? s.depth : 0)}${s.id}`,
      formatTime(s.updated_at),
      s.status,
      s.agent,
      s.model,
      formatTokens(s.total_tokens),
      formatCost(s.total_cost),
      s.title,
    ]),
  ]));
}

export function sessionShow(ctx: OpenedProject, idOrPrefix: string, opts: { json: boolean }): string {
  const id = sessionIdFrom(ctx.store, idOrPrefix, 'opencode-ink sessions --all');
  const session = ctx.store.getSession(id);
  if (!session) throw new ConfigError(`No session with id "${id}" (see opencode-ink sessions --all).`);
  const tree = ctx.store.tree(id);
  if (opts.json) {
    // A root session leads its tree's team (DESIGN §24): its task list is shown with it.
    const team = session.parent_id === null ? { team: teamSnapshot(ctx.store, id) } : {};
    const autos = ctx.store.autoApprovals(id);
    const unasked = autos.length > 0 ? { permission_auto: autos } : {};
    return JSON.stringify({ session: { ...session, ...ctx.store.totals(id) }, messages: ctx.store.messageRows(id), children: tree.children, ...team, ...unasked }, null, 2);
  }
  const totals = ctx.store.totals(id);
  const lines = [
    `${session.title}`,
    `id ${session.id} · agent ${session.agent} · model ${session.model} · ${statusText(session)}`,
    `tokens ${formatTokens(totals.total_tokens)} · cost ${formatCost(totals.total_cost)} (sub-agents included)`,
    '',
    // Undone messages stay in the store and are shown, marked: the model no longer sees them.
    ...ctx.store.messageRows(id).flatMap((row) => (row.undone ? renderMessage(row).map((line) => `[undone] ${line}`) : renderMessage(row))),
  ];
  // What a permission mode let run without asking (DESIGN §26), so it can be told apart afterwards.
  const autos = ctx.store.autoApprovals(id);
  if (autos.length) {
    lines.push('', 'Ran without asking (permission mode):', ...autos.map((a) => `  [${a.skill === null ? a.mode : a.skill.startsWith('/') ? `command ${a.skill}` : `skill ${a.skill}`}] ${a.tool} ${truncate(a.subject, 100)}`));
  }
  if (tree.children.length) lines.push('', 'Sub-agent sessions:', ...renderTree(tree.children, 1));
  const tasks = session.parent_id === null ? teamSnapshot(ctx.store, id).tasks : [];
  const done = new Set(tasks.filter((t) => t.status === 'completed').map((t) => t.id));
  if (tasks.length) lines.push('', 'Team tasks:', ...tasks.map((task) => renderTeamTask(task, done)));
  return terminalSafe(lines.join('\n'));
}

function renderMessage(message: Message): string[] {
  const out: string[] = [];
  for (const part of message.content) {
    switch (part.type) {
      case 'text':
        // A compaction summary is shown for what it is; the messages it replaced stay above it.
        if (part.compaction) out.push('--- compacted: the model continued from this summary of the turns above ---', part.text);
        else out.push(`${message.role === 'user' ? '> ' : ''}${part.text}`);
        break;
      case 'tool_use':
        out.push(`  [${part.name}] ${truncate(JSON.stringify(part.input), 100)}`);
        break;
      case 'tool_result':
        out.push(`  ${part.is_error ? '✗' : '→'} ${truncate(part.content.replace(/\s+/g, ' '), 100)}`);
        for (const image of part.images ?? []) out.push(`    ${imageLabel(image)}`);
        break;
      case 'image':
        out.push(`${message.role === 'user' ? '> ' : ''}${imageLabel(part)}`);
        break;
      default:
        break;
    }
  }
  return out;
}

function renderTeamTask(task: PublicTeamTask, completed: ReadonlySet<string>): string {
  const open = task.status === 'pending' ? task.blocked_by.filter((id) => !completed.has(id)) : [];
  const blocked = open.length ? ` (blocked by ${open.join(', ')})` : '';
  return `  #${task.id} [${task.status}]${blocked} ${task.title}${task.owner ? ` · ${task.owner}` : ''}`;
}

function renderTree(nodes: SessionTree[], depth: number): string[] {
  return nodes.flatMap((node) => [
    `${'  '.repeat(depth)}${node.session.id}  ${node.session.agent}  ${statusText(node.session)}  ${node.session.task_description ?? node.session.title}`,
    ...renderTree(node.children, depth + 1),
  ]);
}

/** A status, with why for a sub-agent stopped at its cap: `limited (reached its limit of 20 model requests (raise subagents.max_turns))`. */
function statusText(session: Pick<SessionRow, 'status' | 'error'>): string {
  return session.status === 'limited' && session.error ? `limited (${session.error})` : session.status;
}

function truncate(s: string, n: number): string {
  return s.length > n ? `${s.slice(0, n - 1)}…` : s;
}
