// The prompt: a multi-line editor with history, `/` and `@` completion, Esc to interrupt
// and Ctrl+C to clear / exit. Behaviour lives in prompt-state.ts; this file wires keys in
// and draws the result.

import { useEffect, useMemo } from 'react';
import { Box, Text } from 'ink';
import { roleColor } from '../../theme.js';
import { useRefState } from '../../keys/ref-state.js';
import { useKeys } from '../../keys/key-router.js';
import { CompletionMenu } from './CompletionMenu.js';
import type { NamedItem } from './completion.js';
import { initialPromptState, isExitArmed, openMenu, reducePrompt, type PromptEffect } from './prompt-state.js';

export interface PromptInputProps {
  onSubmit: (text: string) => void;
  /** Esc with no menu open: interrupt the running turn. */
  onInterrupt?: () => void;
  /** Ctrl+C pressed twice within `exitWindowMs` on an empty prompt: exit now. */
  onExitRequest?: () => void;
  /** Tab with no menu open (Shift+Tab: reverse). */
  onCycleAgent?: (reverse: boolean) => void;
  /** Earlier prompts, oldest first (see input-history.ts). */
  history?: readonly string[];
  commands?: readonly NamedItem[];
  subagents?: readonly NamedItem[];
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
  /** Shown before the first line, e.g. the agent name. */
  prompt?: string;
  promptColor?: string;
  exitWindowMs?: number;
  /** Injectable clock for the double Ctrl+C rule. */
  now?: () => number;
}

export function PromptInput(props: PromptInputProps) {
  const {
    history = [],
    commands,
    subagents,
    completeFile,
    queued = [],
    placeholder,
    disabled = false,
    disabledHint = 'Read-only view',
    isActive = true,
    prompt = '›',
    promptColor,
    exitWindowMs = 2000,
    now = Date.now,
  } = props;
  const [get, set] = useRefState(initialPromptState);
  const state = get();
  const sources = { commands, subagents, completeFile };

  const run = (effect: PromptEffect): void => {
    switch (effect.type) {
      case 'submit': return props.onSubmit(effect.text);
      case 'interrupt': return props.onInterrupt?.();
      case 'exit': return props.onExitRequest?.();
      case 'cycleAgent': return props.onCycleAgent?.(effect.reverse);
    }
  };

  useKeys(
    (input, key) => {
      const result = reducePrompt(get(), input, key, { ...sources, history, now: now(), exitWindowMs });
      set(result.state);
      for (const effect of result.effects) run(effect);
    },
    { isActive: isActive && !disabled },
  );

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
    [state.buffer, state.menuIndex, state.menuDismissed, commands, subagents, completeFile],
  );

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
        <EditorLines text={state.buffer.text} cursor={state.buffer.cursor} placeholder={placeholder} prompt={prompt} promptColor={promptColor} showCursor={isActive} />
      </Box>
      {menu ? <CompletionMenu items={menu.items} index={menu.index} /> : null}
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
        const ch = Array.from(line.slice(at))[0] ?? ' ';
        return (
          <Text key={i}>
            {head}
            {line.slice(0, at)}
            <Text inverse>{ch}</Text>
            {line.slice(at + ch.length)}
          </Text>
        );
      })}
    </>
  );
}
