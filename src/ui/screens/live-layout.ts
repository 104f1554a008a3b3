// Fits the live region (everything below <Static>: live transcript items, sub-agent blocks,
// a dialog, the prompt and the status line) into the terminal height. When that region
// reaches the screen height Ink stops erasing it in place and printed lines get lost, so
// every row is counted here, in the same render that draws them: no measuring after the
// fact, which would put one oversized frame on screen first.

import type { Token, Tokens } from 'marked';
import { lexMarkdown } from '../render/markdown.js';
import { inlinePlain } from '../render/markdown-inline.js';
import { layoutTable, type Align } from '../render/table-layout.js';
import { displayWidth } from '../render/text.js';
import { toolCallRows } from '../components/transcript/ToolCall.js';
import { mergeLine } from '../components/tree/merge-line.js';
import { runnerLine } from '../components/tree/runner-line.js';
import { childDiffRows, diffStatParts } from '../components/tree/child-diff.js';
import { isActive, taskState } from '../components/tree/status.js';
import { latestLine, taskLogLines, taskResultLines } from '../components/tree/tool-log.js';
import { childOfCall, isTaskCall, toolCallsOf, type TranscriptEntry } from '../state/selectors.js';
import type { ToolCallItem, UiState } from '../state/types.js';

/**
 * Rows one line of text takes when Ink wraps it to `width` columns. A port of what Ink
 * runs (wrap-ansi with `trim: false, hard: true`), counting instead of building strings,
 * so an estimate never disagrees with the screen by a row.
 */
export function wrappedRows(line: string, width: number): number {
  const columns = Math.max(1, width);
  const rows: string[] = [''];
  const last = (): string => rows[rows.length - 1] ?? '';
  const append = (text: string): void => {
    rows[rows.length - 1] = last() + text;
  };
  for (const [index, word] of line.normalize().split(' ').entries()) {
    const length = displayWidth(word);
    let rowLength = displayWidth(last());
    if (index !== 0) {
      if (rowLength >= columns) {
        rows.push('');
        rowLength = 0;
      }
      append(' ');
      rowLength++;
    }
    if (length > columns) {
      const breaksStartingThisLine = 1 + Math.floor((length - (columns - rowLength) - 1) / columns);
      const breaksStartingNextLine = Math.floor((length - 1) / columns);
      if (breaksStartingNextLine < breaksStartingThisLine) rows.push('');
      wrapWord(rows, word, columns);
      continue;
    }
    if (rowLength + length > columns && rowLength > 0 && length > 0) rows.push('');
    append(word);
  }
  return rows.length;
}

function wrapWord(rows: string[], word: string, columns: number): void {
  const characters = [...word];
  let visible = displayWidth(rows[rows.length - 1] ?? '');
  for (const [index, character] of characters.entries()) {
    const w = displayWidth(character);
    if (visible + w <= columns) rows[rows.length - 1] += character;
    else {
      rows.push(character);
      visible = 0;
    }
    visible += w;
    if (visible === columns && index < characters.length - 1) {
      rows.push('');
      visible = 0;
    }
  }
  if (!visible && (rows[rows.length - 1] ?? '').length > 0 && rows.length > 1) {
    const tail = rows.pop() ?? '';
    rows[rows.length - 1] += tail;
  }
}

/** Rows of a text that may hold newlines. */
export function textRows(text: string, width: number): number {
  return text.split('\n').reduce((n, line) => n + wrappedRows(line, width), 0);
}

/** Rows the Markdown component draws for `text` at `width` (see render/markdown.tsx). */
export function markdownRows(text: string, width: number): number {
  if (!text.trim()) return 0;
  return blocksRows(lexMarkdown(text), width, true);
}

function blocksRows(tokens: readonly Token[], width: number, spaced: boolean): number {
  const blocks = tokens.filter((t) => t.type !== 'space' && t.type !== 'def');
  return blocks.reduce((n, token, i) => n + (spaced && i > 0 ? 1 : 0) + blockRows(token, width), 0);
}

function blockRows(token: Token, width: number): number {
  switch (token.type) {
    case 'heading':
    case 'paragraph':
      return textRows(inlinePlain((token as Tokens.Paragraph).tokens), width);
    case 'text': {
      const t = token as Tokens.Text;
      return textRows(t.tokens ? inlinePlain(t.tokens) : t.text, width);
    }
    case 'code': {
      const code = token as Tokens.Code;
      const lines = code.text.replace(/\n$/, '').split('\n');
      return (code.lang ? 1 : 0) + lines.reduce((n, l) => n + wrappedRows(l, width - 2), 0);
    }
    case 'blockquote':
      return blocksRows((token as Tokens.Blockquote).tokens, width - 2, true);
    case 'list': {
      const list = token as Tokens.List;
      const start = typeof list.start === 'number' ? list.start : 1;
      const markers = list.items.map((item, i) => `${list.ordered ? `${start + i}.` : '•'}${item.task ? ' [ ]' : ''}`);
      const markerWidth = Math.max(...markers.map((m) => m.length)) + 1;
      return list.items.reduce(
        (n, item, i) =>
          n +
          (list.loose && i > 0 ? 1 : 0) +
          Math.max(
            1,
            blocksRows(
              item.tokens.filter((t) => t.type !== 'checkbox'),
              width - markerWidth,
              item.loose,
            ),
          ),
        0,
      );
    }
    case 'table': {
      const table = token as Tokens.Table;
      const header = table.header.map((c) => inlinePlain(c.tokens));
      const rows = table.rows.map((r) => r.map((c) => inlinePlain(c.tokens)));
      const lines = layoutTable(header, rows, table.align as Align[], width);
      return [lines.header, lines.rule, ...lines.rows].reduce((n, l) => n + textRows(l, width), 0);
    }
    case 'hr':
      return 1;
    case 'html':
      return textRows((token as Tokens.HTML).text.replace(/\n$/, ''), width);
    default:
      return textRows('text' in token && typeof token.text === 'string' ? token.text : token.raw, width);
  }
}

/** What TaskBlock draws (see components/tree/TaskBlock.tsx), row by row. */
export function taskBlockRows(state: UiState, call: ToolCallItem, latestTools: number, depth = 0, maxDepth = 2, maxChildren = 3, expanded = false): number {
  const s = taskState(state, call);
  const child = childOfCall(state, call);
  const where = runnerLine(call) ? 1 : 0;
  if (!isActive(s)) {
    const failed = s === 'failed' || s === 'cancelled';
    const merge = mergeLine(call) ? 1 : 0;
    const stat = diffStatParts(child?.diffStat) ? 1 : 0;
    const diff = expanded && stat && child?.changes ? childDiffRows(child.changes).length : 0;
    return 1 + where + (failed && (child?.statusReason?.trim() || call.output?.trim()) ? 1 : 0) + merge + stat + (expanded ? taskResultLines(call).length + taskLogLines(state, call).length : 0) + diff;
  }
  const calls = child ? toolCallsOf(state, child.id) : [];
  const latest = latestTools > 0 ? Math.min(latestTools, calls.filter((c) => !isTaskCall(c)).length) : 0;
  const fallback = latest === 0 && latestLine(state, call) !== undefined ? 1 : 0;
  const subtasks = calls.filter(isTaskCall);
  let nested = 0;
  if (subtasks.length > 0) {
    if (depth + 1 > maxDepth) nested = 1;
    else {
      const ordered = [...subtasks.filter((c) => isActive(taskState(state, c))), ...subtasks.filter((c) => !isActive(taskState(state, c))).reverse()];
      const shown = ordered.slice(0, maxChildren);
      nested = shown.reduce((n, c) => n + taskBlockRows(state, c, latestTools, depth + 1, maxDepth, maxChildren, expanded), 0) + (ordered.length > shown.length ? 1 : 0);
    }
  }
  return 1 + where + latest + fallback + nested;
}

export interface EntryRowsOptions {
  state: UiState;
  width: number;
  expanded: boolean;
  latestTools: number;
  /** Calls whose diff is left out because their approval dialog shows it. */
  hideDiff?: (call: ToolCallItem) => boolean;
}

/** Rows one transcript entry takes (see components/transcript/TranscriptItem.tsx). */
export function entryRows(entry: TranscriptEntry, o: EntryRowsOptions): number {
  const item = entry.item;
  switch (item.kind) {
    case 'user':
      // The text (when there is any), then one line per image.
      return (item.text ? textRows(item.text, o.width - 2) : 0) + (item.images?.length ?? 0) || 1;
    case 'assistant': {
      const text = 'text' in entry ? entry.text : item.text;
      const last = 'last' in entry ? entry.last : true;
      const gap = 'continued' in entry && entry.continued && text.trim() ? 1 : 0;
      return gap + markdownRows(text, o.width) + (item.abandoned && last ? 1 : 0);
    }
    case 'tool':
      if (isTaskCall(item)) return taskBlockRows(o.state, item, o.latestTools, 0, 2, 3, o.expanded);
      return toolCallRows(item, { expanded: o.expanded, hideDiff: o.hideDiff?.(item) ?? false });
    case 'error':
      return textRows(`✗ ${item.message}`, o.width);
    case 'notice':
      return textRows(`⋯ ${item.text}`, o.width);
  }
}

/** Recent tool calls listed under a running sub-agent when there is room. */
const MAX_LATEST_TOOLS = 3;
/** Rows of a dialog's subject (a diff, a command, a question) kept before sub-agent blocks list fewer tools. */
const PREFERRED_SUBJECT_ROWS = 6;
/** Rows of a dialog's subject kept before the live transcript is cut. */
export const MIN_SUBJECT_ROWS = 3;

export interface LiveLayoutInput {
  /** Terminal height. */
  rows: number;
  /** Rows that never shrink: prompt, status line, notices, the working line. */
  fixedRows: number;
  /** The dialog on screen: its rows besides its subject, and the subject's own rows uncapped. */
  dialog?: { chromeRows: number; subjectRows?: number } | undefined;
  /** Rows of the live transcript when each sub-agent block lists `latestTools` tool calls. */
  transcriptRows: (latestTools: number) => number;
}

export interface LiveLayout {
  latestTools: number;
  /** Set when the live transcript is taller than its share: draw only its last rows. */
  transcriptClip?: number;
  /** Rows the dialog may give its subject. */
  subjectRows: number;
}

/**
 * Shares the screen: the prompt and status line first, then the dialog's frame; then the
 * live transcript, whose sub-agent blocks list fewer recent tools while the dialog's
 * subject would get fewer than a few rows; whatever is left goes to the subject. Only a
 * transcript that still cannot fit is cut (its newest rows stay). One row stays free:
 * Ink treats output as tall as the terminal as full-screen and stops erasing in place.
 */
export function fitLive({ rows, fixedRows, dialog, transcriptRows }: LiveLayoutInput): LiveLayout {
  const available = Math.max(0, rows - 1 - fixedRows - (dialog?.chromeRows ?? 0));
  const subjectNatural = dialog?.subjectRows ?? 0;
  const preferred = Math.max(0, available - Math.min(subjectNatural, PREFERRED_SUBJECT_ROWS));
  let latestTools = MAX_LATEST_TOOLS;
  while (latestTools > 0 && transcriptRows(latestTools) > preferred) latestTools--;
  const natural = transcriptRows(latestTools);
  const shown = Math.min(natural, Math.max(0, available - Math.min(subjectNatural, MIN_SUBJECT_ROWS)));
  const layout: LiveLayout = { latestTools, subjectRows: Math.max(1, Math.min(subjectNatural, available - shown)) };
  if (natural > shown) layout.transcriptClip = shown;
  return layout;
}
