// What reaches a session between its model calls (DESIGN §7 background results, §23 steering).
// Contract: `takeInbox` drains both queues of a live session — background results and messages
// sent to it while it ran — into one user message, in arrival order of each queue (results
// first), and announces every steering message with `message.delivered` as it leaves the queue.
// It is called only at turn boundaries (before a model request, or between turns), never while
// a tool runs, so a message never lands in the middle of a tool call.
// `dropSteering` empties the steering queue of a session that will not read it (cancelled, or
// done with its run): each message is announced with `message.dropped` and its sender is told
// through `settle`, so no message is lost silently.
import type { DropReason, LiveSession, SteeringMessage } from './live-session.js';
import type { Message, TextPart } from '../messages.js';

/** Queues a message for the session's next turn boundary. */
export function queueSteering(session: LiveSession, message: SteeringMessage): void {
  session.steering.push(message);
}

export function hasInbox(session: LiveSession): boolean {
  return session.inbox.length > 0 || session.steering.length > 0;
}

/** The queued results and messages as one user message, or undefined when nothing waits. */
export function takeInbox(session: LiveSession): Message | undefined {
  if (!hasInbox(session)) return undefined;
  const results = session.inbox.splice(0);
  const steered = session.steering.splice(0);
  for (const message of steered) {
    session.emit('message.delivered', { text: message.text, sender: message.sender, continued: false });
    message.settle?.({ delivered: true });
  }
  const parts: TextPart[] = [...results, ...steered.map((m): TextPart => ({ type: 'text', text: m.text }))];
  return { role: 'user', content: parts };
}

/** Drops every message still queued for the session, telling each sender why. */
export function dropSteering(session: LiveSession, reason: DropReason): void {
  for (const message of session.steering.splice(0)) {
    session.emit('message.dropped', { text: message.text, sender: message.sender, reason });
    message.settle?.({ delivered: false, reason });
  }
}
