// Who is who on a team's task list (DESIGN §24). Contract: the root session is the `lead`;
// a teammate owns tasks under its name (team/member-store.ts), any other session of the tree
// under its session id; an owner named in a request resolves to a session of the same tree or
// is refused with a sentence saying who can own tasks; a session's stored status reads as the
// owner's state `working | idle | ended | failed`, so `list` never makes the model guess
// whether an owner is alive.
import type { SessionStatus } from '../events.js';
import type { SessionStore } from '../store/index.js';
import type { TaskActor, TaskOwner } from './task-store.js';

export const LEAD = 'lead';

export type MemberState = 'working' | 'idle' | 'ended' | 'failed';

/** Where teammates' names are kept (team/member-store.ts). */
type Teammates = Pick<SessionStore, 'teamMembers'>;

/** The name a session owns tasks under in its root's list: `lead`, a teammate's name, or its session id. */
export function memberName(rootId: string, sessionId: string, store?: Teammates): string {
  if (sessionId === rootId) return LEAD;
  const teammate = store?.teamMembers.get(sessionId);
  return teammate && teammate.root_id === rootId ? teammate.name : sessionId;
}

export function actorOf(rootId: string, sessionId: string, store?: Teammates): TaskActor {
  return { sessionId, name: memberName(rootId, sessionId, store) };
}

/** The session behind an owner's name, or why there is none. */
export function resolveOwner(store: Pick<SessionStore, 'subtreeIds' | 'teamMembers'>, rootId: string, name: string): TaskOwner | { error: string } {
  const wanted = name.trim();
  if (wanted === LEAD) return { name: LEAD, sessionId: rootId };
  const teammate = store.teamMembers.byName(rootId, wanted);
  if (teammate) return { name: teammate.name, sessionId: teammate.session_id };
  const members = store.subtreeIds(rootId);
  if (wanted !== rootId && members.includes(wanted)) return { name: memberName(rootId, wanted, store), sessionId: wanted };
  const names = store.teamMembers.list(rootId).map((m) => m.name);
  const teammates = names.length ? `, a teammate's name (${names.join(', ')}),` : '';
  return { error: `owner "${name}" is not on this team: name \`${LEAD}\`${teammates} or the session id of one of its sub-agents (a \`task\` result's id), or leave owner out.` };
}

/** An owner's state, read from its session's stored status. */
export function memberState(status: SessionStatus, isLead: boolean): MemberState {
  switch (status) {
    case 'running':
    case 'queued':
      return 'working';
    case 'idle':
      return 'idle';
    case 'completed':
    case 'limited':
      // A lead whose turn is over is waiting for the user, not gone.
      return isLead ? 'idle' : 'ended';
    case 'cancelled':
      return isLead ? 'idle' : 'ended';
    case 'failed':
    case 'interrupted':
      return isLead ? 'idle' : 'failed';
  }
}
