// A permission request (possibly bubbled up from a sub-agent): Allow once / Always allow
// (this session tree) / Deny / Deny with a note. The subject — a command, a diff — is
// capped to the rows the app can spare so the choices are never pushed off the screen.
// "Always allow" names the exact patterns it would remember (`Always allow "git status*"
// for this session tree`), so the user knows what they grant beyond this one request. A
// request asked whatever the rules say (a write to one of the program's control files) says
// why on a line of its own, under "wants to use".

import type { ReactNode } from 'react';
import { Box, Text, useStdout } from 'ink';
import { MAX_WIDTH, roleColor } from '../../theme.js';
import { wrappedRows } from '../../screens/live-layout.js';
import type { DiffLine } from '../../render/diff-lines.js';
import { printableText } from '../../keys/key-event.js';
import { useRefState } from '../../keys/ref-state.js';
import { useKeys } from '../../keys/key-router.js';
import { DialogFrame, OptionList } from './DialogFrame.js';
import { digitChoice, digitRange } from './choice-keys.js';

export type ApprovalReply = 'once' | 'always' | 'reject';

export interface ApprovalDialogProps {
  asker: string;
  tool: string;
  subject: string;
  /** The file a write or an edit would change: named in "wants to write notes.txt". */
  file?: string;
  /** The patterns "Always allow" stores; when absent the choice names no pattern. */
  always?: readonly string[];
  /** Why this is asked even where a rule allows it ("writes .git/config, which controls git: always asked"). */
  reason?: string;
  /** Injected renderer (e.g. a diff view); gets the line budget the dialog can spare. */
  renderSubject?: (subject: string, maxLines: number) => ReactNode;
  position: number;
  total: number;
  onReply: (reply: ApprovalReply, note?: string) => void;
  /** Esc: after the denial, the asker's turn is interrupted (as in Claude Code). */
  onEscape?: () => void;
  /** Overrides the budget derived from the terminal height. */
  maxSubjectLines?: number;
  /** Other dialogs queued behind this one, e.g. `question from build › explore`. */
  waiting?: readonly string[];
  isActive?: boolean;
  /** A short screen: no margins or footer, the choices on one row (see approvalChromeRows). */
  compact?: boolean;
}

export const APPROVAL_CHOICES = ['Allow once', 'Always allow (this session tree)', 'Deny', 'Deny with a note'] as const;

/** The second choice's words: exactly what an "always" answer would remember. */
export function alwaysLabel(always: readonly string[] | undefined): string {
  if (!always) return APPROVAL_CHOICES[1];
  // Nothing can be remembered for a command whose program only running it would tell.
  if (always.length === 0) return 'Allow this time (no pattern can cover it; it will ask again)';
  return `Always allow ${always.map((p) => JSON.stringify(p)).join(', ')} for this session tree`;
}

/** Screen rows the choice list takes at `width` (the "always" choice may wrap). */
export function choiceRows(always: readonly string[] | undefined, width: number): number {
  return 3 + wrappedRows(`❯ 2. ${alwaysLabel(always)}`, width);
}

/** Rows the frame, header, choices and footer take around the subject, with a margin. */
const CHROME_ROWS = 14;

const FOOTER = `↑↓ choose · ${digitRange(APPROVAL_CHOICES.length)} pick · Enter confirm · Esc deny and stop`;
/** The choices on one row, for a compact dialog on a short screen. */
const SHORT_CHOICES = ['Allow', 'Always', 'Deny', 'Note'] as const;

/** The compact dialog's row under its choices: what "Always" would remember (issue 40). */
export function compactAlwaysLine(always: readonly string[]): string {
  if (always.length === 0) return 'Always: no pattern covers this; it asks again';
  return `Always: ${always.map((p) => JSON.stringify(p)).join(', ')}`;
}

/**
 * Rows the dialog takes besides its subject: border 2, header, "wants to use", the
 * subject's margins 2, four choices, the footer as wrapped at `width` — plus the "also
 * waiting" line and the reason (wrapped; one truncated row when compact). Compact (a short
 * screen): border 2, header, "wants to use" and the choices on one row, so who asks and what
 * stay on screen and the subject keeps rows — plus, when "Always" would remember patterns, one
 * row naming them (`always` is the request's).
 */
export function approvalChromeRows(waiting: number, width = MAX_WIDTH, compact = false, choices = 4, reason?: string, always?: readonly string[]): number {
  const also = waiting > 0 ? 1 : 0;
  const why = reason === undefined ? 0 : compact ? 1 : wrappedRows(reasonLine(reason), width - 4);
  if (compact) return 5 + also + why + (always ? 1 : 0);
  return 6 + choices + wrappedRows(FOOTER, width - 4) + also + why;
}

function reasonLine(reason: string): string {
  return `⚠ ${reason}`;
}

/** Rows DiffView draws for `lines` uncapped: the first hunk marker is not drawn. */
export function diffRows(lines: readonly DiffLine[]): number {
  return lines.filter((l, i) => l.kind !== 'hunk' || i > 0).length;
}

/**
 * Fits an edit's diff into `maxRows` by showing less unchanged context around the
 * changes (down to none) before anything changed is cut: the user approves the changed
 * lines, not their neighbours. Skipped stretches become hunk markers (drawn as `⋯`).
 */
export function fitDiffLines(lines: readonly DiffLine[], maxRows: number): DiffLine[] {
  if (diffRows(lines) <= maxRows) return [...lines];
  let fitted: DiffLine[] = [...lines];
  for (let context = 2; context >= 0; context--) {
    fitted = withContext(lines, context);
    if (diffRows(fitted) <= maxRows) break;
  }
  return fitted;
}

function withContext(lines: readonly DiffLine[], context: number): DiffLine[] {
  const changes = lines.flatMap((l, i) => (l.kind === 'add' || l.kind === 'remove' ? [i] : []));
  const out: DiffLine[] = [];
  let gap = true;
  lines.forEach((line, i) => {
    const keep = line.kind !== 'hunk' && changes.some((c) => Math.abs(c - i) <= context);
    if (!keep) {
      gap = true;
      return;
    }
    if (gap) out.push({ kind: 'hunk', text: '' });
    out.push(line);
    gap = false;
  });
  return out;
}

/** Rows a plain (non-diff) subject takes uncapped, at the dialog's inner `width`. */
export function subjectTextRows(tool: string, subject: string, width: number): number {
  const gutter = tool === 'bash' ? '  ' : '';
  return subject.split('\n').reduce((n, line) => n + wrappedRows(gutter + line, width), 0);
}

export function ApprovalDialog(props: ApprovalDialogProps) {
  return <ApprovalBody key={`${props.asker}\u0000${props.tool}\u0000${props.subject}`} {...props} />;
}

interface ApprovalState {
  selected: number;
  noting: boolean;
  note: string;
}

function ApprovalBody({ asker, tool, subject, file, always, reason, renderSubject, position, total, onReply, onEscape, maxSubjectLines, waiting = [], isActive = true, compact = false }: ApprovalDialogProps) {
  const [get, set] = useRefState<ApprovalState>({ selected: 0, noting: false, note: '' });
  const { stdout } = useStdout();
  const { selected, noting, note } = get();
  const budget = maxSubjectLines ?? Math.max(3, (stdout.rows ?? 24) - CHROME_ROWS);

  const choose = (index: number): void => {
    if (index === 0) onReply('once');
    else if (index === 1) onReply('always');
    else if (index === 2) onReply('reject');
    else set({ ...get(), selected: 3, noting: true });
  };

  useKeys(
    (input, key) => {
      const s = get();
      if (s.noting) {
        if (key.escape) return set({ ...s, noting: false, note: '' });
        if (key.return) {
          const text = s.note.trim();
          return text === '' ? onReply('reject') : onReply('reject', text);
        }
        if (key.backspace || key.delete) return set({ ...s, note: Array.from(s.note).slice(0, -1).join('') });
        const typed = printableText(input, key).replace(/\n/g, ' ');
        if (typed !== '') set({ ...s, note: s.note + typed });
        return;
      }
      // Dismissing a permission request must never grant it.
      if (key.escape) {
        onReply('reject');
        return onEscape?.();
      }
      if (key.upArrow) return set({ ...s, selected: (s.selected + 3) % 4 });
      if (key.downArrow) return set({ ...s, selected: (s.selected + 1) % 4 });
      if (key.return) return choose(s.selected);
      const picked = digitChoice(input, key, APPROVAL_CHOICES.length);
      if (picked !== undefined) choose(picked);
    },
    { isActive },
  );

  return (
    <DialogFrame
      title="Permission"
      asker={asker}
      position={position}
      total={total}
      color={roleColor('warning')}
      {...(compact ? {} : { footer: noting ? 'Enter deny with this note · Esc back' : FOOTER })}
    >
      <Text>
        {file !== undefined ? (
          <>
            wants to {tool} <Text bold>{file}</Text>
          </>
        ) : (
          <>
            wants to use <Text bold color={roleColor('toolName')}>{tool}</Text>
          </>
        )}
      </Text>
      {reason !== undefined ? (
        <Text color={roleColor('warning')} bold wrap={compact ? 'truncate-end' : 'wrap'}>
          {reasonLine(reason)}
        </Text>
      ) : null}
      <Box marginY={compact ? 0 : 1} flexDirection="column">
        {renderSubject ? renderSubject(subject, budget) : <SubjectText tool={tool} subject={subject} maxLines={budget} />}
      </Box>
      {compact && !noting ? (
        <Text wrap="truncate-end">
          {SHORT_CHOICES.map((label, i) => (
            <Text key={label} color={i === selected ? roleColor('accent') : undefined} bold={i === selected}>
              {i === selected ? '❯' : ' '}
              {i + 1} {label}
              {i < SHORT_CHOICES.length - 1 ? '  ' : ''}
            </Text>
          ))}
        </Text>
      ) : compact ? null : noting ? (
        // Only the choice being made: the note line takes the place of the others, so the
        // dialog never grows while it is typed.
        <Text color={roleColor('accent')} bold>
          ❯ 4. {APPROVAL_CHOICES[3]}
        </Text>
      ) : (
        <OptionList options={[APPROVAL_CHOICES[0], alwaysLabel(always), APPROVAL_CHOICES[2], APPROVAL_CHOICES[3]]} selected={selected} />
      )}
      {compact && !noting && always ? (
        <Text wrap="truncate-end" color={selected === 1 ? roleColor('accent') : roleColor('muted')}>
          {compactAlwaysLine(always)}
        </Text>
      ) : null}
      {noting ? (
        // One row however long the note: the start scrolls off, as in a one-line field.
        <Text wrap="truncate-start">
          <Text color={roleColor('muted')}>Note: </Text>
          {note}
          <Text inverse> </Text>
        </Text>
      ) : null}
      {waiting.length > 0 ? (
        <Text color={roleColor('muted')} wrap="truncate-end">
          Also waiting: {waiting.join(', ')}
        </Text>
      ) : null}
    </DialogFrame>
  );
}

/**
 * Long lines wrap rather than truncate — the user must see the whole command they
 * approve — so the cap counts screen rows, not lines.
 */
export function capSubject(subject: string, maxRows: number, width: number, gutter = ''): { shown: string[]; hidden: number } {
  const lines = subject.split('\n');
  const rows = (line: string): number => wrappedRows(gutter + line, width);
  if (lines.reduce((n, l) => n + rows(l), 0) <= maxRows) return { shown: lines, hidden: 0 };
  const shown: string[] = [];
  // The last row of the budget is kept for the "more" notice.
  let used = 0;
  for (const line of lines) {
    if (used + rows(line) > maxRows - 1) break;
    shown.push(line);
    used += rows(line);
  }
  // Never show nothing: the start of a huge one-line subject beats a bare count.
  if (shown.length === 0 && lines[0] !== undefined) shown.push(lines[0]);
  return { shown, hidden: lines.length - shown.length };
}

function SubjectText({ tool, subject, maxLines }: { tool: string; subject: string; maxLines: number }) {
  const { stdout } = useStdout();
  const isCommand = tool === 'bash';
  // Inside the border and padding; the "$ " gutter is part of each row.
  const width = (stdout.columns || MAX_WIDTH) - 4;
  const gutter = isCommand ? '  ' : '';
  const { shown, hidden } = capSubject(subject, maxLines, width, gutter);
  const shownRows = shown.reduce((n, line) => n + wrappedRows(gutter + line, width), 0) + (hidden > 0 ? 1 : 0);
  const body = (
    <>
      {shown.map((line, i) => (
        <Text key={i} color={isCommand ? roleColor('code') : undefined}>
          {isCommand ? (i === 0 ? '$ ' : '  ') : ''}
          {line}
        </Text>
      ))}
      {hidden > 0 ? (
        <Text color={roleColor('muted')}>
          … {hidden} more line{hidden === 1 ? '' : 's'}
        </Text>
      ) : null}
    </>
  );
  // A single line too long for the budget is shown from its start, cut at the budget.
  return shownRows > maxLines ? (
    <Box flexDirection="column" height={maxLines} overflow="hidden">
      {body}
    </Box>
  ) : (
    body
  );
}
