// Terminal notifications: the sequence chosen per terminal, the hook that writes it for long
// turns and for waits while the terminal is unfocused, and focus reports never typed as text.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { render, cleanup } from 'ink-testing-library';
import { Text } from 'ink';
import type { CoreEvent } from '../../../src/core/events.js';
import { PromptInput } from '../../../src/ui/components/input/index.js';
import { KeyRouter } from '../../../src/ui/keys/key-router.js';
import { createKeymap } from '../../../src/ui/keys/keymap.js';
import { FOCUS_IN, FOCUS_OUT, useTerminalFocus } from '../../../src/ui/notify/focus.js';
import { notificationSequence, notificationStyle, terminalSafe } from '../../../src/ui/notify/sequence.js';
import { useNotifications, type NotifySettings } from '../../../src/ui/notify/use-notifications.js';
import { tick, waitFor } from '../keys/harness.js';

afterEach(() => cleanup());

const BEL = '\u0007';
const ESC = '\u001B';

describe('notificationSequence', () => {
  it('picks OSC 9, OSC 777 or the bell from what the terminal says it is', () => {
    expect(notificationStyle({ TERM_PROGRAM: 'iTerm.app' })).toBe('osc9');
    expect(notificationStyle({ TERM_PROGRAM: 'WezTerm' })).toBe('osc9');
    expect(notificationStyle({ TERM: 'xterm-kitty' })).toBe('osc9');
    expect(notificationStyle({ TERM_PROGRAM: 'ghostty' })).toBe('osc9');
    expect(notificationStyle({ TERM: 'foot' })).toBe('osc777');
    expect(notificationStyle({ TERM: 'rxvt-unicode-256color' })).toBe('osc777');
    expect(notificationStyle({ TERM: 'xterm-256color' })).toBe('bell');
    expect(notificationSequence('opencode-ink', 'done', { TERM_PROGRAM: 'iTerm.app' })).toBe(`${ESC}]9;opencode-ink: done${BEL}`);
    expect(notificationSequence('opencode-ink', 'done', { TERM: 'foot' })).toBe(`${ESC}]777;notify;opencode-ink;done${BEL}`);
    expect(notificationSequence('opencode-ink', 'done', { TERM: 'xterm' })).toBe(BEL);
  });

  it('wraps the escape in tmux passthrough with inner ESCs doubled', () => {
    const seq = notificationSequence('opencode-ink', 'done', { TERM_PROGRAM: 'WezTerm', TMUX: '/tmp/tmux-1/default,1,0' });
    expect(seq).toBe(`${ESC}Ptmux;${ESC}${ESC}]9;opencode-ink: done${BEL}${ESC}\\`);
  });

  it('strips control characters so the text cannot end the sequence or inject its own', () => {
    expect(terminalSafe(`run ${ESC}]0;evil${BEL}\nrm -rf`)).toBe('run ]0;evil rm -rf');
    const seq = notificationSequence('opencode-ink', `a${BEL}b${ESC}c`, { TERM_PROGRAM: 'WezTerm' });
    expect(seq.slice(0, -1)).not.toContain(BEL);
    expect(seq.slice(2)).not.toContain(ESC);
  });
});

/** A core event source the test drives, as `core.on` would deliver. */
function eventSource() {
  const listeners = new Set<(e: CoreEvent) => void>();
  return {
    on(listener: (e: CoreEvent) => void) {
      listeners.add(listener);
      return () => void listeners.delete(listener);
    },
    emit(e: CoreEvent) {
      for (const l of listeners) l(e);
    },
  };
}

const env = { session_id: 'ses_root', agent: 'build', path: ['ses_root'], ts: 0 };
const child = { session_id: 'ses_child', agent: 'explore', path: ['ses_root', 'ses_child'], ts: 0 };

function setup(settings: NotifySettings | undefined) {
  const source = eventSource();
  const written: string[] = [];
  let clock = 0;
  function Probe() {
    const focused = useTerminalFocus();
    useNotifications({
      on: source.on,
      rootId: 'ses_root',
      settings,
      focused,
      label: (id) => (id === 'ses_child' ? 'build › explore (Find routes)' : 'build'),
      write: (s) => written.push(s),
      env: { TERM_PROGRAM: 'WezTerm' },
      now: () => clock,
    });
    return <Text>probe</Text>;
  }
  // As in the app: the key router holds stdin in raw mode, so focus reports arrive.
  const r = render(
    <KeyRouter keymap={createKeymap()}>
      <Probe />
      <PromptInput onSubmit={() => {}} />
    </KeyRouter>,
  );
  return {
    r,
    written,
    emit: source.emit,
    advance(ms: number) {
      clock += ms;
    },
  };
}

const ON: NotifySettings = { enabled: true, afterSeconds: 20 };
const ask: CoreEvent = { type: 'permission.asked', ...child, request_id: 'per_1', tool: 'bash', subject: 'npm test', permission: 'bash', patterns: ['npm test'] };
const question: CoreEvent = { type: 'question.asked', ...child, question_id: 'que_1', question: 'Which port?', options: [] };

describe('useNotifications', () => {
  it('notifies when a turn that ran longer than after_seconds ends, even before any focus report', async () => {
    const t = setup(ON);
    await tick();
    t.emit({ type: 'session.status', ...env, status: 'running' });
    t.advance(25_000);
    t.emit({ type: 'session.status', ...env, status: 'idle' });
    expect(t.written).toEqual([`${ESC}]9;opencode-ink: build finished after 25 s${BEL}`]);
  });

  it('stays quiet for a short turn, and for everything when disabled', async () => {
    const t = setup(ON);
    await tick();
    t.emit({ type: 'session.status', ...env, status: 'running' });
    t.advance(5_000);
    t.emit({ type: 'session.status', ...env, status: 'idle' });
    expect(t.written).toEqual([]);
    cleanup();
    const off = setup({ enabled: false, afterSeconds: 20 });
    await tick();
    off.r.stdin.write(FOCUS_OUT);
    await tick(5);
    off.emit({ type: 'session.status', ...env, status: 'running' });
    off.advance(60_000);
    off.emit({ type: 'session.status', ...env, status: 'idle' });
    off.emit(ask);
    expect(off.written).toEqual([]);
  });

  it('names the sub-agent whose approval or question waits while the terminal is unfocused', async () => {
    const t = setup(ON);
    await tick();
    t.r.stdin.write(FOCUS_OUT);
    await waitFor(() => {
      t.emit(ask);
      return t.written.length > 0;
    });
    expect(t.written[0]).toBe(`${ESC}]9;opencode-ink: build › explore (Find routes) wants to bash npm test${BEL}`);
    t.emit(question);
    expect(t.written[1]).toContain('build › explore (Find routes) asks: Which port?');
  });

  it('says nothing about waits while focused, or before the terminal reported focus', async () => {
    const t = setup(ON);
    await tick();
    t.emit(ask);
    expect(t.written).toEqual([]);
    t.r.stdin.write(FOCUS_OUT);
    t.r.stdin.write(FOCUS_IN);
    await tick(20);
    t.emit(ask);
    t.emit(question);
    expect(t.written).toEqual([]);
  });
});

describe('focus reports at the prompt', () => {
  it('never become text in the draft', async () => {
    const onSubmit = vi.fn<(text: string) => void>();
    const r = render(
      <KeyRouter keymap={createKeymap()}>
        <PromptInput onSubmit={onSubmit} />
      </KeyRouter>,
    );
    await tick();
    r.stdin.write('ab');
    r.stdin.write(FOCUS_OUT);
    r.stdin.write(FOCUS_IN);
    r.stdin.write(`c${FOCUS_OUT}`);
    r.stdin.write('\r');
    await waitFor(() => onSubmit.mock.calls.length > 0);
    expect(onSubmit).toHaveBeenCalledWith('abc');
  });
});
