// A question from an agent (often a sub-agent, named by its path). Options are picked
// with Up/Down + Enter or their digit (1-9, as in the approval dialog); typing writes a
// free-text answer instead; Esc declines.

import { Box, Text, useStdout } from 'ink';
import { MAX_WIDTH, roleColor } from '../../theme.js';
import { textRows, wrappedRows } from '../../screens/live-layout.js';
import { printableText } from '../../keys/key-event.js';
import { useRefState } from '../../keys/ref-state.js';
import { useKeys } from '../../keys/key-router.js';
import { DialogFrame, OptionList } from './DialogFrame.js';
import { digitChoice, digitRange } from './choice-keys.js';

export interface AskUserDialogProps {
  /** The asking agent's path, e.g. `build › explore (Find API routes)`. */
  asker: string;
  question: string;
  options: readonly string[];
  /** 1-based place of this question in the queue. */
  position: number;
  total: number;
  /** Other dialogs queued behind this one (questions, approvals), by who asks. */
  waiting?: readonly string[];
  onAnswer: (text: string) => void;
  onDecline: () => void;
  /** Rows the question text may take; a longer one is cut with a notice. */
  maxQuestionRows?: number;
  isActive?: boolean;
  /** A short screen: no margins or footer (see askUserRows). */
  compact?: boolean;
}

const FOOTER_OPTIONS = (typing: boolean, count: number) =>
  typing ? '↑↓ choose · Enter send your answer · Esc decline' : `↑↓ choose · ${digitRange(count)} pick · Enter pick · type to answer freely · Esc decline`;

const FOOTER_TEXT = 'Enter send · Esc decline';

/**
 * Rows the dialog takes at `width` columns besides the question text (border, header,
 * the question's margins, options, the answer line, who else waits, footer), and the
 * question's own rows, so the app can fit both to the screen.
 */
export function askUserRows(p: Pick<AskUserDialogProps, 'question' | 'options' | 'waiting'>, width: number, compact = false): { chromeRows: number; questionRows: number } {
  const inner = width - 4;
  const hasOptions = p.options.length > 0;
  const options = p.options.reduce((n, o, i) => n + wrappedRows(`❯ ${i + 1}. ${o}`, inner), 0);
  // Compact (a short screen): no margins and no footer, so the header stays in view.
  if (compact) return { chromeRows: 2 + 1 + options + 1 + ((p.waiting?.length ?? 0) > 0 ? 1 : 0), questionRows: textRows(p.question, inner) };
  const footer = hasOptions ? Math.max(wrappedRows(FOOTER_OPTIONS(true, p.options.length), inner), wrappedRows(FOOTER_OPTIONS(false, p.options.length), inner)) : wrappedRows(FOOTER_TEXT, inner);
  const chromeRows = 2 + 1 + 2 + options + (hasOptions ? 1 : 0) + 1 + ((p.waiting?.length ?? 0) > 0 ? 1 : 0) + footer;
  return { chromeRows, questionRows: textRows(p.question, inner) };
}

/** Keyed by question so a queued question never inherits the previous one's draft. */
export function AskUserDialog(props: AskUserDialogProps) {
  return <AskUserBody key={`${props.asker}\u0000${props.question}`} {...props} />;
}

interface AskState {
  selected: number;
  text: string;
}

function AskUserBody({ asker, question, options, position, total, waiting = [], onAnswer, onDecline, maxQuestionRows, isActive = true, compact = false }: AskUserDialogProps) {
  const [get, set] = useRefState<AskState>({ selected: 0, text: '' });
  const { selected, text } = get();
  const hasOptions = options.length > 0;

  useKeys(
    (input, key) => {
      const s = get();
      if (key.escape) return onDecline();
      if (key.return) {
        if (s.text.trim() !== '') return onAnswer(s.text.trim());
        const option = options[s.selected];
        if (option !== undefined) onAnswer(option);
        return;
      }
      if (key.upArrow && hasOptions) return set({ ...s, selected: (s.selected - 1 + options.length) % options.length });
      if (key.downArrow && hasOptions) return set({ ...s, selected: (s.selected + 1) % options.length });
      if (key.backspace || key.delete) return set({ ...s, text: Array.from(s.text).slice(0, -1).join('') });
      if (key.ctrl && input === 'u') return set({ ...s, text: '' });
      // A digit picks that option, as in the approval dialog — unless an answer is being typed.
      const picked = s.text === '' ? digitChoice(input, key, options.length) : undefined;
      if (picked !== undefined) return onAnswer(options[picked] ?? '');
      // Answers are one line: a pasted newline becomes a space.
      const typed = printableText(input, key).replace(/\n/g, ' ');
      if (typed !== '') set({ ...s, text: s.text + typed });
    },
    { isActive },
  );

  const typing = text !== '';
  const footer = hasOptions ? FOOTER_OPTIONS(typing, options.length) : FOOTER_TEXT;
  const { stdout } = useStdout();
  const width = stdout.columns || MAX_WIDTH;
  const questionRows = textRows(question, width - 4);
  // Cut to the rows given, the last of them saying so.
  const cut = maxQuestionRows !== undefined && questionRows > maxQuestionRows ? Math.max(1, maxQuestionRows) : undefined;

  return (
    <DialogFrame title="Question" asker={asker} position={position} total={total} color={roleColor('warning')} {...(compact ? {} : { footer })}>
      <Box marginY={compact ? 0 : 1} flexDirection="column">
        {cut === undefined ? (
          <Text>{question}</Text>
        ) : (
          <>
            <Box height={Math.max(1, cut - 1)} overflow="hidden">
              <Text>{question}</Text>
            </Box>
            {cut > 1 ? <Text color={roleColor('muted')}>… (cut to fit the screen)</Text> : null}
          </>
        )}
      </Box>
      {hasOptions ? <OptionList options={options} selected={selected} dimmed={typing} /> : null}
      <Box marginTop={hasOptions && !compact ? 1 : 0}>
        {/* One row however long the answer: its start scrolls off, as in a one-line field. */}
        <Text wrap="truncate-start">
          <Text color={roleColor('muted')}>{hasOptions ? 'Or type: ' : 'Answer: '}</Text>
          {text}
          <Text inverse> </Text>
        </Text>
      </Box>
      {waiting.length > 0 ? (
        <Text color={roleColor('muted')} wrap="truncate-end">
          Also waiting: {waiting.join(', ')}
        </Text>
      ) : null}
    </DialogFrame>
  );
}
