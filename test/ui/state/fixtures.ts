// Builders for core events and a scripted session tree: build → explore (+ grandchild) and general.

import type { CoreEvent, EventPayloads, EventType } from '../../../src/core/events.js';
import type { Usage } from '../../../src/core/messages.js';
import { validEvent } from '../../support/events.js';
import { createUiState, reduce, type UiInput, type UiState } from '../../../src/ui/state/index.js';

/** An event as the core would emit it; checked against the protocol schema like every event tests see. */
export function ev<K extends EventType>(type: K, sessionId: string, path: string[], agent: string, payload: EventPayloads[K], ts = 0): CoreEvent {
  return validEvent({ type, session_id: sessionId, path, agent, ts, ...payload });
}

export function usage(input: number, output: number): Usage {
  return { input_tokens: input, output_tokens: output, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };
}

export function run(events: UiInput[], state: UiState = createUiState()): UiState {
  return events.reduce(reduce, state);
}

export const ROOT = 'root';
export const A = 'childA';
export const B = 'childB';
export const G = 'grand';

/** A root that spawns two children; child A spawns a grandchild. Ends with everything running. */
export function treeEvents(): UiInput[] {
  const rp = [ROOT];
  const ap = [ROOT, A];
  const bp = [ROOT, B];
  const gp = [ROOT, A, G];
  return [
    ev('session.created', ROOT, rp, 'build', { parent_id: null, title: 'Main', tool_call_id: null, task_description: null, depth: 0 }, 1),
    { type: 'ui.user_message', session_id: ROOT, text: 'Map the API', ts: 2 },
    ev('session.status', ROOT, rp, 'build', { status: 'running' }, 3),
    ev('message.started', ROOT, rp, 'build', { message_id: 'm1' }, 4),
    ev('text.delta', ROOT, rp, 'build', { text: 'Delegating.' }, 5),
    ev('message.completed', ROOT, rp, 'build', { message_id: 'm1', usage: usage(100, 10), stop_reason: 'tool_use' }, 6),
    ev('tool.started', ROOT, rp, 'build', { call_id: 'callA', tool: 'task', input: { description: 'Find API routes', prompt: 'Find the routes', subagent_type: 'explore' } }, 7),
    ev('tool.started', ROOT, rp, 'build', { call_id: 'callB', tool: 'task', input: { description: 'Review tests', prompt: 'Review', subagent_type: 'general' } }, 7),
    ev('session.created', A, ap, 'explore', { parent_id: ROOT, title: 'Find API routes (@explore subagent)', tool_call_id: 'callA', task_description: 'Find API routes', depth: 1 }, 8),
    ev('session.status', A, ap, 'explore', { status: 'queued' }, 8),
    ev('session.created', B, bp, 'general', { parent_id: ROOT, title: 'Review tests (@general subagent)', tool_call_id: 'callB', task_description: 'Review tests', depth: 1 }, 9),
    ev('session.status', B, bp, 'general', { status: 'queued' }, 9),
    // The concurrency limit holds B (the core says so in the reason): queued, not starting.
    ev('session.status', B, bp, 'general', { status: 'queued', reason: 'waiting for a free slot (subagents.max_concurrency is 2)' }, 9),
    ev('session.status', A, ap, 'explore', { status: 'running' }, 10),
    ev('tool.progress', ROOT, rp, 'build', { call_id: 'callA', tool: 'task', metadata: { session_id: A, agent: 'explore', status: 'running', tool_calls: 0, elapsed_ms: 0 } }, 10),
    ev('tool.started', A, ap, 'explore', { call_id: 'a1', tool: 'read', input: { file_path: 'src/a.ts' } }, 11),
    ev('tool.completed', A, ap, 'explore', { call_id: 'a1', tool: 'read', output: '1\tx', is_error: false }, 12),
    ev('tool.started', A, ap, 'explore', { call_id: 'callG', tool: 'task', input: { description: 'Deep dive', prompt: 'Dig', subagent_type: 'explore' } }, 13),
    ev('session.created', G, gp, 'explore', { parent_id: A, title: 'Deep dive (@explore subagent)', tool_call_id: 'callG', task_description: 'Deep dive', depth: 2 }, 14),
    ev('session.status', G, gp, 'explore', { status: 'queued' }, 14),
    ev('session.status', G, gp, 'explore', { status: 'running' }, 15),
    ev('message.completed', G, gp, 'explore', { message_id: 'g1', usage: usage(50, 5), stop_reason: 'end_turn' }, 16),
    ev('turn.completed', G, gp, 'explore', { usage: usage(50, 5), cost: 0.5 }, 17),
    ev('message.completed', A, ap, 'explore', { message_id: 'a-m', usage: usage(20, 2), stop_reason: 'tool_use' }, 17),
  ];
}
