// The team as a compacted session must still know it (DESIGN §24): a summary replaces the
// messages that started the teammates and told of their states, so the summary carries a
// `<team>` section written from the store — who is on the team, in which state, holding which
// tasks. Nothing for a session that has no team (one query, at compaction only).
import type { SessionStore } from '../store/index.js';
import { describeIds } from './task-store.js';

export function teamSection(store: Pick<SessionStore, 'teamMembers' | 'teamTasks'>, session: { id: string; path: readonly string[] }): string | undefined {
  const rootId = session.path[0] ?? session.id;
  const members = store.teamMembers.list(rootId);
  if (members.length === 0) return undefined;
  const tasks = store.teamTasks.list(rootId);
  const lines = members.map((m) => {
    const held = tasks.filter((t) => t.status === 'in_progress' && t.owner_session_id === m.session_id).map((t) => t.id);
    return `- ${m.name}: ${m.state}${held.length ? `, holds task ${describeIds(held)}` : ''}${m.session_id === session.id ? ' (you)' : ''}`;
  });
  const open = tasks.filter((t) => t.status !== 'completed').length;
  const who = session.id === rootId ? 'You lead this team' : 'You are on this team (the lead is "lead")';
  return [
    `<team>`,
    `${who}; its members, as they are now:`,
    ...lines,
    `${tasks.length} task${tasks.length === 1 ? '' : 's'} on the shared list, ${open} not completed (task_list list shows them). Talk to a member with send_message; an idle one wakes up to read it.`,
    `</team>`,
  ].join('\n');
}
