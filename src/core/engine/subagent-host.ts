// Connects the sub-agent supervisor to the engine's parts. Contract: `subagentHost` returns the
// `SubagentHost` the supervisor works through — children are created in the store (announced
// with `session.created` and a queued `session.status`), opened afresh by the session factory
// under the parent calling them now, run and delivered to by the turn scheduler, and a child
// counts as running while this engine runs it or another process holds its lease.
import type { LiveSession } from '../agent/live-session.js';
import type { EventListener, EventPayloads, EventType } from '../events.js';
import { resolveModelName } from '../provider/index.js';
import type { SubagentHost } from '../subagents/index.js';
import type { Workspaces } from '../workspace/worktree.js';
import type { EngineOptions } from '../engine.js';
import type { SessionFactory } from './session-factory.js';
import type { TurnScheduler } from './turn-scheduler.js';
import { returnHeldTasks } from '../team/task-list.js';
import type { Checkpoints } from './checkpoints.js';

export interface SubagentHostDeps {
  options: EngineOptions;
  /** Sessions held in memory, shared with the engine, the factory and the scheduler. */
  live: Map<string, LiveSession>;
  sessions: SessionFactory;
  turns: TurnScheduler;
  workspaces: Workspaces;
  checkpoints: Pick<Checkpoints, 'sessionSnapshot' | 'beforeProjectChange' | 'merged'>;
  onEvent: (listener: EventListener) => () => void;
  emitFor: <K extends EventType>(sessionId: string, agent: string, path: readonly string[], type: K, payload: EventPayloads[K]) => void;
  /** Children's containers (DESIGN §25), made on first use. */
  containers: Pick<SubagentHost, 'startContainer' | 'stopContainer'>;
  /** A session held in memory, opened from the store (its ancestors too) when it is not. */
  open: (sessionId: string) => LiveSession;
}

export function subagentHost(deps: SubagentHostDeps): SubagentHost {
  const { options, live, sessions, turns, emitFor } = deps;
  const store = options.store;
  return {
    settings: options.config.subagents,
    store,
    workspaces: deps.workspaces,
    agent: (name) => options.agents.get(name),
    subagents: () => [...options.agents.values()].filter((a) => (a.mode === 'subagent' || a.mode === 'all') && !a.disable),
    resolveModel: (name, fallback) => resolveModelName(name, fallback),
    createChild: (parent, fields) => {
      const row = store.createSession({
        ...fields,
        parent_id: parent.id,
        status: 'queued',
        cwd: parent.cwd,
        depth: parent.depth + 1,
      });
      emitFor(row.id, row.agent, [...parent.path, row.id], 'session.created', {
        parent_id: parent.id,
        title: row.title,
        tool_call_id: fields.tool_call_id,
        task_description: fields.task_description,
        depth: row.depth,
      });
      emitFor(row.id, row.agent, [...parent.path, row.id], 'session.status', { status: 'queued' });
      return row;
    },
    openChild: (row, parent, narrow, fork) => {
      // Built afresh every time: a resumed child gets the gates of the parent calling it now.
      live.delete(row.id);
      return sessions.open(row, parent, narrow, undefined, fork);
    },
    runChild: async (child, input, opts) => {
      const outcome = await turns.runLive(child, input, opts);
      // A sub-agent that failed or was stopped will not finish what it claimed: others may (DESIGN §24).
      if (outcome.status === 'failed' || outcome.status === 'cancelled') returnHeldTasks(store, child);
      return outcome;
    },
    // A child another process holds (it resumed it, or runs it) counts as running too.
    isRunning: (id) => turns.isRunning(id) || store.leases.otherHolder(id) !== undefined,
    liveSession: (id) => live.get(id),
    onEvent: deps.onEvent,
    deliver: (parent, text, arrival) => turns.deliver(parent, { type: 'text', text }, arrival),
    trackBackground: (rootId, work) => turns.trackBackground(rootId, work),
    checkpoint: (sessionId, phase) => deps.checkpoints.sessionSnapshot(sessionId, phase),
    beforeMerge: (sessionId) => deps.checkpoints.beforeProjectChange(sessionId),
    merged: (sessionId, topLevel, files, fromAt) => deps.checkpoints.merged(sessionId, topLevel, files, fromAt),
    startContainer: (child) => deps.containers.startContainer(child),
    stopContainer: (child) => deps.containers.stopContainer(child),
    team: {
      maxTeammates: options.config.team.max_teammates,
      open: deps.open,
      emitStatus: (sessionId, status) => {
        const path: string[] = [];
        for (let row = store.getSession(sessionId); row; row = row.parent_id ? store.getSession(row.parent_id) : undefined) path.unshift(row.id);
        const row = store.getSession(sessionId);
        if (row) emitFor(row.id, row.agent, path, 'session.status', { status });
      },
    },
  };
}
