/*
 * `run --format text` on stderr: one line when a sub-agent starts and one when it ends, so a
 * long run shows what it is doing (stdout keeps only the answer). Off with `--quiet`.
 *
 * Contract
 * - A child's run starting (its status becoming `running`) prints `▸ general (Find routes) started`;
 *   its end prints `✓ general (Find routes) 12s`, or for any other end the state and, when
 *   the core gave one, why: `■ general (Find routes) limited after 12s: reached its limit of
 *   20 model requests (raise subagents.max_turns)`, `✗ … failed after 3s: …`, `⊘ … cancelled
 *   after 1s`. A nested child is named by its chain of sub-agents (`general (Survey) ›
 *   explore (Find routes)`). The root session prints nothing here.
 * - Descriptions and reasons come from models and tools: no escape sequence reaches the terminal.
 */
import type { CoreEvent, SessionStatus } from '../core/events.js';
import { terminalSafe } from '../core/text/terminal-safe.js';

interface Child {
  label: string;
  /** When its current run started; undefined while it is not running. */
  startedAt?: number;
}

const ENDS: Partial<Record<SessionStatus, { glyph: string; word: string }>> = {
  completed: { glyph: '✓', word: 'completed' },
  idle: { glyph: '✓', word: 'completed' },
  limited: { glyph: '■', word: 'limited' },
  failed: { glyph: '✗', word: 'failed' },
  cancelled: { glyph: '⊘', word: 'cancelled' },
  interrupted: { glyph: '⊘', word: 'interrupted' },
};

/** Returns the listener to give the engine. */
export function childProgressPrinter(stderr: { write(text: string): unknown }): (event: CoreEvent) => void {
  const children = new Map<string, Child>();
  return (event) => {
    if (event.type === 'session.created') {
      if (event.parent_id === null) return;
      const own = event.task_description ? `${event.agent} (${oneLine(event.task_description)})` : event.agent;
      const parent = children.get(event.parent_id);
      children.set(event.session_id, { label: parent ? `${parent.label} › ${own}` : own });
      return;
    }
    if (event.type !== 'session.status') return;
    const child = children.get(event.session_id);
    if (!child) return;
    if (event.status === 'running') {
      if (child.startedAt !== undefined) return;
      child.startedAt = event.ts;
      stderr.write(`${terminalSafe(`▸ ${child.label} started`)}\n`);
      return;
    }
    const end = ENDS[event.status];
    if (!end || child.startedAt === undefined) return;
    const took = formatDuration(event.ts - child.startedAt);
    child.startedAt = undefined;
    const line = end.word === 'completed' ? `${end.glyph} ${child.label} ${took}` : `${end.glyph} ${child.label} ${end.word} after ${took}${event.reason ? `: ${oneLine(event.reason)}` : ''}`;
    stderr.write(`${terminalSafe(line)}\n`);
  };
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

/** `12s`, `3m 05s`, `1h 02m`. */
export function formatDuration(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m ${String(s % 60).padStart(2, '0')}s`;
  return `${Math.floor(m / 60)}h ${String(m % 60).padStart(2, '0')}m`;
}
