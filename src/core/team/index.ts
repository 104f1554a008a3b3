// Agent teams (DESIGN §24): the shared task list — its tables (team/task-store.ts), the
// `task_list` tool and the return of a failed owner's tasks (team/task-list.ts), who may own
// tasks (team/members.ts) — teammates, their states and messages (team/member-store.ts,
// team/teammates.ts, team/send-message.ts), and the team as `sessions show --json` gives it.
import type { SessionStore } from '../store/index.js';
import { publicTask, type PublicTeamTask } from './task-list.js';

export { actorOf, LEAD, memberName, memberState, resolveOwner, type MemberState } from './members.js';
export { TeamMemberStore, type TeamMember, type TeamMessage, type TeammateSpawn } from './member-store.js';
export { formatMessage, Teammates, type TeammateSpawner } from './teammates.js';
export { createSendMessageTool, SEND_MESSAGE_TOOL, type SendMessageArgs } from './send-message.js';
export { publicTask, returnHeldTasks, TASK_LIST_TOOL, taskListTool, type PublicTeamTask, type TaskListCaller, type TeamAccess } from './task-list.js';
export {
  describeIds,
  TEAM_TASK_STATUSES,
  TeamTaskStore,
  type NewTeamTask,
  type TaskActor,
  type TaskOwner,
  type TaskResult,
  type TeamTask,
  type TeamTaskChanges,
  type TeamTaskStatus,
} from './task-store.js';

/** A root session's team as `sessions show <root> --json` gives it (DESIGN §24). */
export interface TeamSnapshot {
  /** Teammates (`task` with `name`); none until teammates exist. */
  teammates: Array<{ name: string; session_id: string; state: string }>;
  tasks: PublicTeamTask[];
}

export function teamSnapshot(store: SessionStore, rootId: string): TeamSnapshot {
  const teammates = store.teamMembers.list(rootId).map((m) => ({ name: m.name, session_id: m.session_id, state: m.state }));
  return { teammates, tasks: store.teamTasks.list(rootId).map(publicTask) };
}
