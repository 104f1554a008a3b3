// Sends terminal notifications from core events (DESIGN §9). Contract: when the root session's
// turn ends after running at least `afterSeconds`, and when an approval or a question starts
// waiting while the terminal is known to be unfocused, it writes one notification naming the
// session that waits (its agent path). Before the terminal has reported focus at all, it is
// taken as focused for waits (no spam) while long turns still notify. Nothing when disabled.
import { useEffect, useRef, type RefObject } from 'react';
import type { CoreEvent } from '../../core/events.js';
import { notificationSequence } from './sequence.js';

export interface NotifySettings {
  enabled: boolean;
  afterSeconds: number;
}

export interface NotificationSources {
  on(listener: (event: CoreEvent) => void): () => void;
  rootId: string;
  settings: NotifySettings | undefined;
  /** True/false once the terminal reported focus; undefined before. */
  focused: RefObject<boolean | undefined>;
  /** How the UI names a session: `build › explore (Find routes)`. */
  label(sessionId: string): string;
  write(sequence: string): void;
  /** `--yes`: approvals are answered at once, so none waits for the user. */
  approvalsAutomatic?: boolean;
  env?: NodeJS.ProcessEnv;
  now?: () => number;
}

const TITLE = 'opencode-ink';
const ENDED_STATUSES: ReadonlySet<string> = new Set(['idle', 'completed', 'failed', 'cancelled', 'interrupted']);

export function useNotifications(sources: NotificationSources): void {
  const latest = useRef(sources);
  latest.current = sources;
  const { on, rootId } = sources;
  useEffect(() => {
    let startedAt: number | undefined;
    return on((event) => {
      const s = latest.current;
      if (!s.settings?.enabled) return;
      const now = (s.now ?? Date.now)();
      const send = (body: string) => s.write(notificationSequence(TITLE, body, s.env ?? process.env));
      if (event.type === 'session.status' && event.session_id === rootId) {
        if (event.status === 'running') startedAt ??= now;
        else if (ENDED_STATUSES.has(event.status) && startedAt !== undefined) {
          const seconds = (now - startedAt) / 1000;
          startedAt = undefined;
          if (seconds >= s.settings.afterSeconds) send(`${s.label(rootId)} ${turnEnding(event.status)} after ${Math.round(seconds)} s`);
        }
        return;
      }
      // Unknown focus counts as focused: a terminal without focus reports must not beep at every ask.
      if (s.focused.current !== false) return;
      if (event.type === 'permission.asked' && !s.approvalsAutomatic) send(`${s.label(event.session_id)} wants to ${event.tool} ${event.file ?? event.subject}`);
      else if (event.type === 'question.asked') send(`${s.label(event.session_id)} asks: ${event.question}`);
    });
  }, [on, rootId]);
}

function turnEnding(status: string): string {
  if (status === 'failed') return 'failed';
  if (status === 'cancelled' || status === 'interrupted') return 'stopped';
  return 'finished';
}
