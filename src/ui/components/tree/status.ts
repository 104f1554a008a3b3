// How a sub-agent's state reads at a glance: which state a task call is in, its glyph or
// spinner frame, and elapsed time. Spinners derive from `now` so no component owns a timer.

import { childOfCall, childPhase, toolCallsOf } from '../../state/selectors.js';
import type { SessionStatus, ToolCallItem, UiState } from '../../state/types.js';
import { GLYPHS, SPINNER_FRAMES, roleColor, type Role } from '../../theme.js';

/** `queued` only while a limit holds the child; `starting` until its first model request (issue 40). */
export type TaskState = 'queued' | 'starting' | 'running' | 'completed' | 'limited' | 'failed' | 'cancelled';

function fromStatus(status: SessionStatus | string | undefined): TaskState | undefined {
  switch (status) {
    case 'queued':
    case 'running':
    case 'completed':
    case 'limited':
    case 'failed':
    case 'cancelled':
      return status;
    case 'interrupted':
      return 'cancelled';
    default:
      return undefined;
  }
}

export function taskState(state: UiState, call: ToolCallItem): TaskState {
  if (call.done) {
    // The task result names the final state; it wins over a child status we may have missed.
    const reported = fromStatus(call.taskOutcome?.state);
    if (reported && reported !== 'running') return reported;
  }
  const child = childOfCall(state, call);
  const phase = child ? childPhase(child) : undefined;
  if (phase) return phase;
  const fromChild = fromStatus(child?.status);
  if (fromChild) return fromChild;
  const fromProgress = fromStatus(call.task?.status);
  if (fromProgress) return fromProgress;
  if (call.done) return call.isError ? 'failed' : 'completed';
  return child?.status === 'idle' ? 'completed' : 'queued';
}

export function isActive(s: TaskState): boolean {
  return s === 'queued' || s === 'starting' || s === 'running';
}

export function stateGlyph(s: TaskState, now: number): string {
  return s === 'running' || s === 'starting' ? (SPINNER_FRAMES[Math.floor(now / 80) % SPINNER_FRAMES.length] ?? '') : GLYPHS[s];
}

export function stateColor(s: TaskState): string | undefined {
  const roles: Record<TaskState, Role> = { queued: 'queued', starting: 'running', running: 'running', completed: 'success', limited: 'warning', failed: 'error', cancelled: 'warning' };
  return roleColor(roles[s]);
}

export function formatElapsed(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m ${String(s % 60).padStart(2, '0')}s`;
  return `${Math.floor(m / 60)}h ${String(m % 60).padStart(2, '0')}m`;
}

/** Undefined while queued: time waiting for a slot is not time working. */
export function taskElapsed(state: UiState, call: ToolCallItem, now: number): number | undefined {
  const child = childOfCall(state, call);
  // A background task's call returned at once; its child's own end is what counts.
  const callEnd = call.done && call.taskOutcome?.state !== 'running' ? call.endedAt : undefined;
  if (child?.startedAt !== undefined) return (child.finishedAt ?? callEnd ?? now) - child.startedAt;
  return call.task?.elapsed_ms;
}

export function taskToolCount(state: UiState, call: ToolCallItem): number {
  const child = childOfCall(state, call);
  const seen = child ? toolCallsOf(state, child.id).length : 0;
  return Math.max(seen, call.task?.tool_calls ?? 0);
}
