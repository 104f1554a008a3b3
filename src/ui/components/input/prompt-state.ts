// The prompt's behaviour as a pure reducer: (state, key, environment) → new state plus the
// effects the component must run (submit, interrupt, exit, cycle agent). Keeping it pure
// lets bursts of key events be applied in order without waiting for React renders.

import type { KeyFlags } from '../../keys/key-event.js';
import { printableText } from '../../keys/key-event.js';
import * as ed from './editor.js';
import { applyCompletion, menuContext, menuItems, type CompletionSources, type MenuContext, type MenuItem } from './completion.js';

export interface PromptState {
  buffer: ed.Buffer;
  /** -1 while editing the draft; otherwise how many entries back from the newest. */
  historyIndex: number;
  /** The unsent text kept while browsing history. */
  draft: ed.Buffer;
  menuIndex: number;
  /** Esc closed the menu; it stays closed until the text changes. */
  menuDismissed: boolean;
  /** A first Ctrl+C on an empty prompt arms exit until this time. */
  exitArmedUntil: number | undefined;
  /** Long pastes, shown in the draft as their token and expanded on send. */
  pastes: readonly PastedText[];
  /** When a lone Esc was last pressed on an empty prompt: a second one soon after is Esc Esc. */
  escapedAt: number | undefined;
}

/** Two Esc presses on an empty prompt within this many milliseconds open the rewind list. */
export const DOUBLE_ESCAPE_MS = 600;

export interface PastedText {
  /** What the draft shows, e.g. `[Pasted 400 lines]`; unique within the draft. */
  token: string;
  text: string;
}

/** A paste longer than this (lines or characters) is shown as a token, not inline. */
export const PASTE_INLINE_MAX_LINES = 10;
export const PASTE_INLINE_MAX_CHARS = 2000;

export type PromptEffect =
  | { type: 'submit'; text: string }
  | { type: 'interrupt' }
  /** Esc Esc on an empty prompt (DESIGN §18). */
  | { type: 'rewind' }
  | { type: 'exit' }
  | { type: 'cycleAgent'; reverse: boolean }
  /** Shift+Tab: the next permission mode (DESIGN §26). */
  | { type: 'cycleMode' };

export interface PromptEnv extends CompletionSources {
  /** Oldest first, newest last. */
  history: readonly string[];
  now: number;
  exitWindowMs: number;
}

export interface OpenMenu {
  context: MenuContext;
  items: MenuItem[];
  index: number;
}

export const initialPromptState: PromptState = {
  buffer: ed.EMPTY,
  historyIndex: -1,
  draft: ed.EMPTY,
  menuIndex: 0,
  menuDismissed: false,
  exitArmedUntil: undefined,
  pastes: [],
  escapedAt: undefined,
};

/** The draft with every paste token still in it replaced by the text it stands for. */
export function expandPastes(text: string, pastes: readonly PastedText[]): string {
  let out = text;
  // A token the user edited away is simply gone; one left whole is replaced once.
  for (const p of pastes) out = out.replace(p.token, () => p.text);
  return out;
}

function pasteToken(text: string, taken: readonly PastedText[]): string {
  const lines = text.split('\n').length;
  const base = lines > 1 ? `Pasted ${lines} lines` : `Pasted ${text.length} characters`;
  let token = `[${base}]`;
  for (let n = 2; taken.some((p) => p.token === token); n++) token = `[${base} #${n}]`;
  return token;
}

export function openMenu(state: PromptState, sources: CompletionSources): OpenMenu | undefined {
  if (state.menuDismissed) return undefined;
  const context = menuContext(state.buffer);
  if (!context) return undefined;
  const items = menuItems(context, sources);
  if (items.length === 0) return undefined;
  return { context, items, index: Math.min(state.menuIndex, items.length - 1) };
}

/** How long after a first Ctrl+C a second one exits (and the hint saying so stays). */
export const EXIT_WINDOW_MS = 2000;

export function isExitArmed(state: PromptState, now: number): boolean {
  return state.exitArmedUntil !== undefined && now <= state.exitArmedUntil;
}

interface Result {
  state: PromptState;
  effects: PromptEffect[];
}

export function reducePrompt(prev: PromptState, input: string, key: KeyFlags, env: PromptEnv): Result {
  const isCtrlC = Boolean(key.ctrl) && input === 'c';
  // Any other key cancels a pending "press Ctrl+C again".
  const state: PromptState = isCtrlC ? prev : { ...prev, exitArmedUntil: undefined };
  const none = (s: PromptState): Result => ({ state: s, effects: [] });
  const edit = (b: ed.Buffer): Result => none(withBuffer(state, b));

  if (isCtrlC) {
    if (state.buffer.text !== '') return none({ ...initialPromptState });
    if (isExitArmed(state, env.now)) return { state: { ...state, exitArmedUntil: undefined }, effects: [{ type: 'exit' }] };
    return none({ ...state, exitArmedUntil: env.now + env.exitWindowMs });
  }

  const menu = openMenu(state, env);
  const b = state.buffer;

  if (menu) {
    const n = menu.items.length;
    if (key.upArrow) return none({ ...state, menuIndex: (menu.index - 1 + n) % n });
    if (key.downArrow) return none({ ...state, menuIndex: (menu.index + 1) % n });
    if (key.escape) return none({ ...state, menuDismissed: true });
    const item = menu.items[menu.index];
    if (item && key.tab) return edit(applyCompletion(b, menu.context, item));
    if (item && key.return && !key.shift && !key.meta) {
      // A command typed out in full runs on Enter instead of needing a second press.
      const exact =
        (menu.context.kind === 'command' && item.label === `/${menu.context.query}`) || (menu.context.kind === 'model' && item.insert === menu.context.query);
      if (!exact) return edit(applyCompletion(b, menu.context, item));
    }
  }

  if (key.return) {
    if (key.shift || key.meta) return edit(ed.insert(b, '\n'));
    if (b.cursor > 0 && b.text[b.cursor - 1] === '\\') return edit(ed.insert(ed.backspace(b), '\n'));
    const text = expandPastes(b.text, state.pastes).replace(/\s+$/, '');
    if (text.trim() === '') return none(state);
    return { state: { ...initialPromptState }, effects: [{ type: 'submit', text }] };
  }
  if (key.escape) {
    if (b.text !== '') return { state: { ...state, escapedAt: undefined }, effects: [{ type: 'interrupt' }] };
    const double = state.escapedAt !== undefined && env.now - state.escapedAt <= DOUBLE_ESCAPE_MS;
    if (double) return { state: { ...state, escapedAt: undefined }, effects: [{ type: 'rewind' }] };
    return { state: { ...state, escapedAt: env.now }, effects: [{ type: 'interrupt' }] };
  }
  // Shift+Tab (ESC [ Z) cycles the permission mode, as in Claude Code; Tab the agent.
  if (key.tab) return { state, effects: [key.shift ? { type: 'cycleMode' } : { type: 'cycleAgent', reverse: false }] };
  if (key.upArrow) return ed.cursorLine(b).line > 0 ? none({ ...state, buffer: ed.verticalMove(b, -1) }) : none(historyStep(state, env.history, 1));
  if (key.downArrow) {
    const { line, lineCount } = ed.cursorLine(b);
    return line < lineCount - 1 ? none({ ...state, buffer: ed.verticalMove(b, 1) }) : none(historyStep(state, env.history, -1));
  }
  // Ctrl+←/→ (and Alt+←/→, which macOS terminals send) move by word.
  if (key.leftArrow) return none({ ...state, buffer: key.ctrl || key.meta ? ed.wordLeft(b) : ed.left(b) });
  if (key.rightArrow) return none({ ...state, buffer: key.ctrl || key.meta ? ed.wordRight(b) : ed.right(b) });
  if (key.home) return none({ ...state, buffer: ed.home(b) });
  if (key.end) return none({ ...state, buffer: ed.end(b) });
  // Terminals send DEL (0x7f) for Backspace and Ink reports it as `delete`, so both erase
  // backwards; forward delete is Ctrl+D. A paste token goes as a whole.
  if ((key.backspace || key.delete) && key.meta) return edit(ed.deleteWordStartBefore(b));
  if (key.backspace || key.delete) {
    const token = state.pastes.find((p) => b.text.slice(0, b.cursor).endsWith(p.token));
    if (token) return edit({ text: b.text.slice(0, b.cursor - token.token.length) + b.text.slice(b.cursor), cursor: b.cursor - token.token.length });
    return edit(ed.backspace(b));
  }

  // Alt+letter arrives as ESC + letter, which Ink reports as meta.
  if (key.meta && !key.ctrl) {
    switch (input) {
      case 'b': return none({ ...state, buffer: ed.wordLeft(b) });
      case 'f': return none({ ...state, buffer: ed.wordRight(b) });
      case 'd': return edit(ed.deleteWordAfter(b));
      default: return none(state);
    }
  }
  if (key.ctrl) {
    switch (input) {
      case 'a': return none({ ...state, buffer: ed.home(b) });
      case 'e': return none({ ...state, buffer: ed.end(b) });
      case 'u': return edit(ed.killToLineStart(b));
      case 'k': return edit(ed.killToLineEnd(b));
      case 'w': return edit(ed.deleteWordBefore(b));
      case 'd': return edit(ed.deleteForward(b));
      case 'b': return none({ ...state, buffer: ed.left(b) });
      case 'f': return none({ ...state, buffer: ed.right(b) });
      default: return none(state);
    }
  }
  // Ctrl+J arrives as a bare line feed.
  if (input === '\n') return edit(ed.insert(b, '\n'));
  const text = printableText(input, key);
  if (text === '') return none(state);
  if (key.paste && (text.split('\n').length > PASTE_INLINE_MAX_LINES || text.length > PASTE_INLINE_MAX_CHARS)) {
    const token = pasteToken(text, state.pastes);
    return none({ ...withBuffer(state, ed.insert(b, token)), pastes: [...state.pastes, { token, text }] });
  }
  return edit(ed.insert(b, text));
}

function withBuffer(state: PromptState, buffer: ed.Buffer): PromptState {
  if (buffer.text === state.buffer.text) return { ...state, buffer };
  return { ...state, buffer, menuIndex: 0, menuDismissed: false };
}

/** `older` = 1 goes back in time, -1 forward; past the newest entry is the saved draft. */
function historyStep(state: PromptState, history: readonly string[], older: 1 | -1): PromptState {
  const index = state.historyIndex + older;
  if (index < -1 || index >= history.length) return state;
  const draft = state.historyIndex === -1 ? state.buffer : state.draft;
  const buffer = index === -1 ? draft : ed.fromText(history[history.length - 1 - index] ?? '');
  // A recalled "/cmd" must not pop the menu and steal the next Up.
  return { ...state, buffer, draft, historyIndex: index, menuIndex: 0, menuDismissed: index !== -1 };
}
