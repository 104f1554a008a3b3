// Agent teams (DESIGN §24). So far: the shared task list — its tables (team/task-store.ts),
// the `task_list` tool and the return of a failed owner's tasks (team/task-list.ts), who may
// own tasks (team/members.ts) — and the team as `sessions show --json` gives it.
import type { SessionStore } from '../store/index.js';
import { publicTask, type PublicTeamTask } from './task-list.js';

export { actorOf, LEAD, memberName, memberState, resolveOwner, type MemberState } from './members.js';
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
  return { teammates: [], tasks: store.teamTasks.list(rootId).map(publicTask) };
}
