// The slice of the core engine the UI calls. Components depend on this shape, not on the
// Engine class, so the UI stays a pure consumer of the core API and its events.
import type { Engine } from '../core/engine.js';

export type UiCore = Pick<
  Engine,
  | 'on'
  | 'prompt'
  | 'cancel'
  | 'sendToSession'
  | 'detach'
  | 'isDetachable'
  | 'isRunning'
  | 'answerQuestion'
  | 'declineQuestion'
  | 'replyPermission'
  | 'primaryAgents'
  | 'subagents'
  | 'createSession'
  | 'history'
  | 'children'
  | 'listRoots'
  | 'setAgent'
  | 'setModel'
  | 'commands'
  | 'compact'
  | 'undo'
  | 'redo'
  | 'prompts'
  | 'rewind'
  | 'modelLimit'
> &
  // Optional: UI tests drive the app with cores that have no MCP servers, model list, skills, shells or snapshots.
  Partial<
    Pick<
      Engine,
      | 'mcpStatus'
      | 'agentMcpStatus'
      | 'modelChoices'
      | 'skills'
      | 'runningShells'
      | 'stopShell'
      | 'watchShell'
      | 'teamTasks'
      | 'sessionDiffStat'
      | 'sessionChanges'
      | 'revertSession'
      | 'fork'
      | 'permissionMode'
      | 'setPermissionMode'
    >
  >;
