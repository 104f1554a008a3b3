// The prompt: a multi-line editor with history, `/` and `@` completion, Esc to interrupt
// and Ctrl+C to clear / exit. Behaviour lives in prompt-state.ts; this file wires keys in
// and draws the result.

import { useEffect, useMemo, useRef } from 'react';
import { Box, Text } from 'ink';
import { MAX_WIDTH, roleColor } from '../../theme.js';
import { wrappedRows } from '../../screens/live-layout.js';
import { useRefState } from '../../keys/ref-state.js';
import { useKeys } from '../../keys/key-router.js';
import { CompletionMenu } from './CompletionMenu.js';
import { fromText, graphemeAt } from './editor.js';
import type { NamedItem } from './completion.js';
import { EXIT_WINDOW_MS, initialPromptState, isExitArmed, openMenu, reducePrompt, type OpenMenu, type PromptEffect, type PromptState } from './prompt-state.js';

export interface PromptInputProps {
  onSubmit: (text: string) => void;
  /** Esc with no menu open: interrupt the running turn. */
  onInterrupt?: () => void;
  /** Esc twice within DOUBLE_ESCAPE_MS on an empty prompt (the first Esc still interrupts). */
  onRewind?: () => void;
  /** Replaces the draft with `text` whenever `id` changes (a rewound prompt back in the input). */
  fill?: { id: number; text: string } | undefined;
  /** Ctrl+C pressed twice within `exitWindowMs` on an empty prompt: exit now. */
  onExitRequest?: () => void;
  /** Tab with no menu open. */
  onCycleAgent?: (reverse: boolean) => void;
  /** Shift+Tab with no menu open: the next permission mode. */
  onCycleMode?: () => void;
  /** Earlier prompts, oldest first (see input-history.ts). */
  history?: readonly string[];
  commands?: readonly NamedItem[];
  subagents?: readonly NamedItem[];
  /** What `/model ` offers. */
  models?: readonly NamedItem[];
  /** Paths for an `@` prefix; directories end with '/'. Called on every keystroke in a mention. */
  completeFile?: (prefix: string) => readonly string[];
  /** Messages typed while the agent is busy, shown above the input. */
  queued?: readonly string[];
  placeholder?: string;
  /** Read-only (child view): no editing, `disabledHint` shown instead. */
  disabled?: boolean;
  disabledHint?: string;
  /** False while something else owns the keyboard (a dialog, a pending leader chord). */
  isActive?: boolean;
  /**
   * Draw the text cursor (default: while active). False while a mode that takes every key
   * first (the block selection) is on: typing does not go here meanwhile.
   */
  showCursor?: boolean;
  /** Shown before the first line, e.g. the agent name. */
  prompt?: string;
  promptColor?: string;
  exitWindowMs?: number;
  /** Injectable clock for the double Ctrl+C rule. */
  now?: () => number;
  /** Columns the prompt is drawn in; used to count its rows. */
  width?: number;
  /**
   * Told the rows the prompt takes, queued lines not included (the caller has those), so
   * the screen above can make room. Called before a key's change is drawn, in the same
   * batch, so the two always agree.
   */
  onRowsChange?: (rows: number) => void;
}

/** Items the menu shows at once. */
const MENU_VISIBLE = 8;

/** Rows the prompt draws for `state`, without the queued lines above it. */
export function promptRows(
  state: PromptState,
  menu: OpenMenu | undefined,
  o: { width: number; prompt: string; placeholder?: string | undefined; disabled?: boolean; disabledHint?: string; exitArmed?: boolean },
): number {
  // The bordered box: border 2, padding 2 columns.
  const inner = o.width - 4;
  if (o.disabled) return 2 + wrappedRows(o.disabledHint ?? '', inner);
  const text = state.buffer.text;
  const editor =
    text === ''
      ? wrappedRows(`${o.prompt}  ${o.placeholder ?? ''}`, inner)
      : text.split('\n').reduce((n, line, i) => n + wrappedRows(`${i === 0 ? o.prompt : ' '.repeat(o.prompt.length)} ${line} `, inner), 0);
  const menuRows = menu ? Math.min(MENU_VISIBLE, menu.items.length) + (menu.items.length > MENU_VISIBLE ? 1 : 0) : 0;
  return 2 + editor + menuRows + (o.exitArmed ? 1 : 0);
}

export function PromptInput(props: PromptInputProps) {
  const {
    history = [],
    commands,
    subagents,
    models,
    completeFile,
    queued = [],
    placeholder,
    disabled = false,
    disabledHint = 'Read-only view',
    isActive = true,
    showCursor = isActive,
    prompt = '›',
    promptColor,
    exitWindowMs = EXIT_WINDOW_MS,
    now = Date.now,
    width = MAX_WIDTH,
  } = props;
  const [get, set] = useRefState(initialPromptState);
  const state = get();
  const sources = { commands, subagents, models, completeFile };

  const reported = useRef<number | undefined>(undefined);
  const rowsOf = (s: PromptState, menu = openMenu(s, sources)): number =>
    promptRows(s, menu, { width, prompt, placeholder, disabled, disabledHint, exitArmed: isExitArmed(s, now()) });
  const report = (rows: number): void => {
    if (rows === reported.current) return;
    reported.current = rows;
    props.onRowsChange?.(rows);
  };

  const run = (effect: PromptEffect): void => {
    switch (effect.type) {
      case 'submit': return props.onSubmit(effect.text);
      case 'interrupt': return props.onInterrupt?.();
      case 'rewind': return props.onRewind?.();
      case 'exit': return props.onExitRequest?.();
      case 'cycleAgent': return props.onCycleAgent?.(effect.reverse);
      case 'cycleMode': return props.onCycleMode?.();
    }
  };

  useKeys(
    (input, key) => {
      const result = reducePrompt(get(), input, key, { ...sources, history, now: now(), exitWindowMs });
      if (props.onRowsChange) report(rowsOf(result.state));
      set(result.state);
      for (const effect of result.effects) run(effect);
    },
    { isActive: isActive && !disabled },
  );

  const fillId = props.fill?.id;
  const fillText = props.fill?.text;
  useEffect(() => {
    if (fillId === undefined || fillText === undefined) return;
    set({ ...initialPromptState, buffer: fromText(fillText) });
  }, [fillId, fillText, set]);

  // Only takes the hint down; whether a second Ctrl+C exits is decided by the clock.
  const armedUntil = state.exitArmedUntil;
  useEffect(() => {
    if (armedUntil === undefined) return;
    const timer = setTimeout(() => set((s) => ({ ...s, exitArmedUntil: undefined })), exitWindowMs);
    return () => clearTimeout(timer);
  }, [armedUntil, exitWindowMs, set]);

  // completeFile may touch the disk: recompute only when the text or cursor moves.
  const menu = useMemo(
    () => openMenu(state, sources),
    [state.buffer, state.menuIndex, state.menuDismissed, commands, subagents, models, completeFile],
  );
  // Changes not made by a key (the exit hint expiring, a new width, read-only mode) are
  // reported after they are drawn.
  const rows = rowsOf(state, menu);
  useEffect(() => {
    // A passive effect can run late, after a key already reported the rows of a newer
    // state: report what the newest state needs, never this render's stale count.
    const current = get();
    report(current === state ? rows : rowsOf(current));
  });

  if (disabled) {
    return (
      <Box borderStyle="round" borderColor={roleColor('muted')} paddingX={1}>
        <Text color={roleColor('muted')}>{disabledHint}</Text>
      </Box>
    );
  }

  return (
    <Box flexDirection="column">
      {queued.map((msg, i) => (
        <Text key={i} color={roleColor('queued')} wrap="truncate-end">
          {'⧗ queued: '}
          {msg.split('\n')[0]}
          {msg.includes('\n') ? ' …' : ''}
        </Text>
      ))}
      <Box borderStyle="round" borderColor={roleColor('muted')} paddingX={1} flexDirection="column">
        <EditorLines text={state.buffer.text} cursor={state.buffer.cursor} placeholder={placeholder} prompt={prompt} promptColor={promptColor} showCursor={isActive && showCursor} />
      </Box>
      {menu ? <CompletionMenu items={menu.items} index={menu.index} maxVisible={MENU_VISIBLE} /> : null}
      {isExitArmed(state, now()) ? <Text color={roleColor('warning')}>Press Ctrl+C again to exit</Text> : null}
    </Box>
  );
}

interface EditorLinesProps {
  text: string;
  cursor: number;
  placeholder: string | undefined;
  prompt: string;
  promptColor: string | undefined;
  showCursor: boolean;
}

function EditorLines({ text, cursor, placeholder, prompt, promptColor, showCursor }: EditorLinesProps) {
  const gutter = ' '.repeat(prompt.length + 1);
  if (text === '') {
    return (
      <Text>
        <Text color={promptColor}>{prompt} </Text>
        {showCursor ? <Text inverse> </Text> : null}
        {placeholder ? <Text color={roleColor('muted')}>{placeholder}</Text> : null}
      </Text>
    );
  }
  const lines = text.split('\n');
  let offset = 0;
  return (
    <>
      {lines.map((line, i) => {
        const start = offset;
        offset += line.length + 1;
        const head = i === 0 ? <Text color={promptColor}>{prompt} </Text> : <Text>{gutter}</Text>;
        if (!showCursor || cursor < start || cursor > start + line.length) {
          return (
            <Text key={i}>
              {head}
              {line}
            </Text>
          );
        }
        const at = cursor - start;
        const ch = graphemeAt(line, at);
        return (
          <Text key={i}>
            {head}
            {line.slice(0, at)}
            <Text inverse>{ch === '' ? ' ' : ch}</Text>
            {line.slice(at + ch.length)}
          </Text>
        );
      })}
    </>
  );
}
