// One `task` call drawn as a block: the sub-agent's name in its colour, the task, its
// state (a fork says so after its agent's name: it is a copy of the session that started it), live elapsed time and tool count, its latest tool calls, and its own sub-agents
// nested beneath (capped by depth and count). Child thinking is never shown. A finished
// block adds what the sub-agent (and its own sub-agents) spent in tokens and money; expanded
// (Ctrl+O) it lists the first lines of its report and its tool log: what the parent model was told.
// A finished block also says what its sub-agent changed in the files (`+12 −3 in 3 files`),
// and expanded, shows that diff once the app has asked the core for it (see child-diff.ts).
// While the screen's block-selection mode is on (see block-selection.ts), top-level blocks
// get a marker column and the selected one a `❯` there, so it shows without colour; a block
// the user expanded on its own shows its diff as Ctrl+O would. A sub-agent whose commands run
// in a container names it and its host on the line under the header.

import { Box, Text } from 'ink';
import { memo, useContext } from 'react';
import { childOfCall, descendantsOf, isTaskCall, subtreeTotals, toolCallsOf } from '../../state/selectors.js';
import { isRecord } from '../../state/reducer.js';
import { FORK_SUBAGENT_TYPE, isForkCall } from '../../../core/subagents/fork.js';
import { TASK_TOOL } from '../../../core/subagents/gates.js';
import type { SessionStatus, ToolCallItem, UiState } from '../../state/types.js';
import { MAX_WIDTH, agentColor, roleColor } from '../../theme.js';
import { oneLine } from '../../render/text.js';
import { toolSummary } from '../transcript/tool-summary.js';
import { formatCost, formatTokens } from '../status-line.js';
import { BlockHintContext } from './block-hint.js';
import { BlockSelectionContext } from './block-selection.js';
import { mergeLine } from './merge-line.js';
import { runnerLine } from './runner-line.js';
import { childDiffRows, diffStatParts, type ChildDiffRow } from './child-diff.js';
import { truncate } from '../../render/text.js';
import { latestLine, reportText, taskLogLines, taskResultLines } from './tool-log.js';
import { formatElapsed, isActive, stateColor, stateGlyph, taskElapsed, taskState, taskToolCount, type TaskState } from './status.js';

export interface TaskBlockProps {
  state: UiState;
  call: ToolCallItem;
  /** Clock for spinners and elapsed time (see useNow); passed in so tests are deterministic. */
  now: number;
  width?: number;
  /** Nesting level of this block: 0 for a task of the viewed session. */
  depth?: number;
  /** Deepest level drawn as a block; below it sub-agents collapse to `+N more`. */
  maxDepth?: number;
  /** Sub-agent blocks drawn per level before `+N more`. */
  maxChildren?: number;
  /** Latest tool calls listed under a running sub-agent. */
  latestTools?: number;
  /** Agent colours from config, by agent name. */
  agentColors?: Readonly<Record<string, string>>;
  /** Ctrl+O: a finished block lists the tool calls its sub-agent made. */
  expanded?: boolean;
}

const INDENT = 2;

/**
 * Parents re-render every block on each frame (the state they pass in is new), but a
 * block's own lines change far less often than its child's state: ten children streaming
 * text replace their session nodes on every delta. So the lines are derived as plain
 * strings here and drawn by a memoised component that skips unchanged blocks.
 */
export function TaskBlock(props: TaskBlockProps) {
  const { state, call, now, width = MAX_WIDTH, depth = 0, maxDepth = 2, maxChildren = 3, latestTools = 3, agentColors } = props;
  const child = childOfCall(state, call);
  // A forked skill's call (`skill`) names the skill, not a teammate: only `task` input counts here.
  const input = isRecord(call.input) && call.tool === TASK_TOOL ? call.input : {};
  const type = typeof input['subagent_type'] === 'string' ? input['subagent_type'] : undefined;
  const isFork = isForkCall({ fork: input['fork'] === true, subagent_type: type });
  // A fork runs as its parent's agent, known once its session exists; until then it is just "fork".
  const agent = child?.agent || (isFork ? FORK_SUBAGENT_TYPE : (type ?? 'task'));
  const fork = isFork && child !== undefined;
  const description = child?.description || (typeof input['description'] === 'string' ? input['description'] : '');
  // A teammate (DESIGN §24) does not end with its call: its state and the task it holds are the team's.
  const teammate = typeof input['name'] === 'string' && child ? teammateLine(child.status, child.heldTask) : undefined;
  const s = teammate?.state ?? taskState(state, call);
  const elapsed = s === 'queued' ? undefined : taskElapsed(state, call, now);
  const tools = taskToolCount(state, call);
  const active = isActive(s);
  const spent = !active && child ? spentOn(state, child.id) : undefined;
  // The keys for this child, on the blocks the viewed session waits on (a returned call no longer waits).
  const keyHint = useContext(BlockHintContext);
  const selection = useContext(BlockSelectionContext);
  const selected = depth === 0 && selection.selecting && selection.selectedCallId === call.id;
  const marker = depth === 0 && selection.selecting ? (selected ? '❯ ' : '  ') : '';
  const expanded = props.expanded === true || (child !== undefined && selection.expandedChildIds.has(child.id));
  const hint = active && depth === 0 && !call.done ? keyHint : undefined;
  const details = [teammate?.words ?? s, elapsed !== undefined ? formatElapsed(elapsed) : undefined, tools ? `${tools} tool${tools === 1 ? '' : 's'}` : undefined, spent, hint]
    .filter(Boolean)
    .join(' · ');

  const calls = child ? toolCallsOf(state, child.id) : [];
  const latest = latestTools > 0 ? calls.filter((c) => !isTaskCall(c)).slice(-latestTools) : [];
  const subtasks = calls.filter(isTaskCall);
  const latestFallback = latest.length === 0 ? latestLine(state, call) : undefined;
  const reason = s === 'failed' || s === 'cancelled' || s === 'limited' ? failureReason(call, child?.statusReason) : undefined;
  const log = expanded && !active ? [...taskResultLines(call), ...taskLogLines(state, call)] : NO_LINES;
  // Expanded, the report's own lines may already end with the reason (`[Cancelled by the user.]`): say it once.
  const shownReason = reason !== undefined && log.includes(reason) ? undefined : reason;
  const merge = active ? undefined : mergeLine(call);
  const where = runnerLine(call);
  const stat = active ? undefined : diffStatParts(child?.diffStat);
  const diffRows = expanded && stat && child?.changes ? childDiffRows(child.changes) : NO_ROWS;
  const inner = width - INDENT;

  return (
    <Box flexDirection="column" width={width}>
      <BlockLines
        marker={marker}
        selected={selected}
        glyph={stateGlyph(s, now)}
        glyphColor={stateColor(s)}
        agent={agent}
        fork={fork}
        teammateName={teammate && typeof input['name'] === 'string' ? oneLine(input['name']) : undefined}
        agentColor={agentColor(agent, agentColors?.[agent])}
        description={description ? oneLine(description) : ''}
        details={details}
        where={where}
        active={active}
        latest={latest.map((c) => `${c.done ? (c.isError ? '✗' : '⎿') : '›'} ${toolSummary(c)}`)}
        latestFallback={latestFallback}
        reason={shownReason}
        mergeText={merge?.text}
        mergeTone={merge?.tone}
        statAdditions={stat?.additions}
        statDeletions={stat?.deletions}
        statFiles={stat?.files}
        reverted={stat !== undefined && child?.reverted === true}
        log={log}
      />
      {diffRows.length > 0 ? (
        <Box paddingLeft={INDENT}>
          <ChildDiffLines rows={diffRows} width={inner} />
        </Box>
      ) : null}
      {active && subtasks.length > 0 ? (
        <Box flexDirection="column" paddingLeft={INDENT}>
          <Subtasks {...props} subtasks={subtasks} width={inner} depth={depth} maxDepth={maxDepth} maxChildren={maxChildren} />
        </Box>
      ) : null}
    </Box>
  );
}

interface BlockLinesProps {
  /** The selection column: '' outside the mode, `❯ ` on the selected block, else blanks. */
  marker: string;
  /** The selected block: its agent name is drawn inverted as well. */
  selected: boolean;
  glyph: string;
  glyphColor: string | undefined;
  agent: string;
  /** The task is a fork of the session that started it. */
  fork: boolean;
  /** A teammate's name (`task` with `name`), shown after its agent's. */
  teammateName: string | undefined;
  agentColor: string | undefined;
  description: string;
  details: string;
  /** `in container … on …`: where the sub-agent's commands run, when in a container. */
  where: string | undefined;
  active: boolean;
  /** The latest tool calls, each already summarised with its state glyph. */
  latest: readonly string[];
  latestFallback: string | undefined;
  reason: string | undefined;
  /** What an isolated task's merge did ("merged 3 files"), once it has finished. */
  mergeText: string | undefined;
  mergeTone: 'success' | 'warning' | 'muted' | undefined;
  /** `+12`, `−3`, `in 3 files`: what the finished sub-agent changed; undefined when nothing. */
  statAdditions: string | undefined;
  statDeletions: string | undefined;
  statFiles: string | undefined;
  /** Those changes were reverted since. */
  reverted: boolean;
  /** The first lines of a finished block's report, then its tool log, when expanded. */
  log: readonly string[];
}

const NO_LINES: readonly string[] = [];
const NO_ROWS: readonly ChildDiffRow[] = [];

function sameList(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((line, i) => line === b[i]);
}

function sameLines(a: BlockLinesProps, b: BlockLinesProps): boolean {
  for (const key of Object.keys(a) as (keyof BlockLinesProps)[]) {
    if (key === 'latest' || key === 'log') continue;
    if (a[key] !== b[key]) return false;
  }
  return sameList(a.latest, b.latest) && sameList(a.log, b.log);
}

/** The header line, then the latest tool calls of a running block or the reason it failed. */
const BlockLines = memo(function BlockLines(props: BlockLinesProps) {
  const { marker, selected, glyph, glyphColor, agent, fork, teammateName, agentColor, description, details, where, active, latest, latestFallback, reason, mergeText, mergeTone, log } = props;
  const { statAdditions, statDeletions, statFiles, reverted } = props;
  return (
    <>
      <Text wrap="truncate-end">
        {marker ? <Text bold>{marker}</Text> : null}
        <Text color={glyphColor}>{glyph} </Text>
        <Text bold color={agentColor} inverse={selected}>
          {agent}
        </Text>
        {fork ? <Text color={agentColor}> fork</Text> : null}
        {teammateName ? <Text color={agentColor}> @{teammateName}</Text> : null}
        {description ? <Text> {description}</Text> : null}
        <Text color={roleColor('muted')}> · {details}</Text>
      </Text>
      {where ? (
        <Box paddingLeft={INDENT}>
          <Text wrap="truncate-end" color={roleColor('muted')}>
            {where}
          </Text>
        </Box>
      ) : null}
      {active ? (
        <Box flexDirection="column" paddingLeft={INDENT}>
          {latest.map((line, i) => (
            <Text key={i} wrap="truncate-end" color={roleColor('muted')}>
              {line}
            </Text>
          ))}
          {latestFallback ? (
            <Text wrap="truncate-end" color={roleColor('muted')}>
              › {latestFallback}
            </Text>
          ) : null}
        </Box>
      ) : reason ? (
        <Box paddingLeft={INDENT}>
          <Text wrap="truncate-end" color={roleColor('error')}>
            {reason}
          </Text>
        </Box>
      ) : null}
      {mergeText ? (
        <Box paddingLeft={INDENT}>
          <Text wrap="truncate-end" color={roleColor(mergeTone ?? 'muted')}>
            {mergeText}
          </Text>
        </Box>
      ) : null}
      {statFiles ? (
        <Box paddingLeft={INDENT}>
          <Text wrap="truncate-end">
            <Text color={roleColor('diffAdd')}>{statAdditions}</Text> <Text color={roleColor('diffRemove')}>{statDeletions}</Text>
            <Text color={roleColor('muted')}>
              {' '}
              {statFiles}
              {reverted ? ' · reverted' : ''}
            </Text>
          </Text>
        </Box>
      ) : null}
      {log.length > 0 ? (
        <Box flexDirection="column" paddingLeft={INDENT}>
          {log.map((line, i) => (
            <Text key={i} wrap="truncate-end" color={roleColor('muted')}>
              {line}
            </Text>
          ))}
        </Box>
      ) : null}
    </>
  );
}, sameLines);

/** The expanded diff: a header per file, numbered lines coloured by sign, each cut to the width. */
const ChildDiffLines = memo(function ChildDiffLines({ rows, width }: { rows: readonly ChildDiffRow[]; width: number }) {
  const numberWidth = Math.max(1, ...rows.map((r) => (r.kind === 'line' ? String(r.number).length : 0)));
  return (
    <Box flexDirection="column">
      {rows.map((row, i) => {
        switch (row.kind) {
          case 'file':
            return (
              <Text key={i} wrap="truncate-end">
                <Text bold>{row.path}</Text>
                <Text color={roleColor('muted')}> {row.note}</Text>
              </Text>
            );
          case 'hunk':
            return (
              <Text key={i} color={roleColor('diffHunk')}>
                {' '.repeat(numberWidth)} ⋯
              </Text>
            );
          case 'line':
            return (
              <Text key={i} color={row.sign === '+' ? roleColor('diffAdd') : row.sign === '-' ? roleColor('diffRemove') : undefined}>
                <Text color={roleColor('muted')}>{String(row.number).padStart(numberWidth)} </Text>
                {truncate(`${row.sign} ${row.text}`, width - numberWidth - 1)}
              </Text>
            );
          case 'more':
            return (
              <Text key={i} color={roleColor('muted')}>
                {row.text}
              </Text>
            );
        }
      })}
    </Box>
  );
});

function Subtasks(props: TaskBlockProps & { subtasks: ToolCallItem[]; width: number; depth: number; maxDepth: number; maxChildren: number }) {
  const { subtasks, ...blockProps } = props;
  const { state, depth, maxDepth, maxChildren } = blockProps;
  if (subtasks.length === 0) return null;
  if (depth + 1 > maxDepth) {
    // Too deep to draw: count every sub-agent below, not only the direct ones.
    const count = subtasks.reduce((n, c) => {
      const grandchild = childOfCall(state, c);
      return n + 1 + (grandchild ? descendantsOf(state, grandchild.id).length : 0);
    }, 0);
    return <Text color={roleColor('muted')}>+{count} more</Text>;
  }
  // Running and queued ones first: they are what the user is waiting on.
  const ordered = [...subtasks.filter((c) => isActive(taskState(state, c))), ...subtasks.filter((c) => !isActive(taskState(state, c))).reverse()];
  const shown = ordered.slice(0, maxChildren);
  const hidden = ordered.length - shown.length;
  return (
    <Box flexDirection="column">
      {shown.map((c) => (
        <TaskBlock key={c.id} {...blockProps} call={c} depth={depth + 1} />
      ))}
      {hidden > 0 ? <Text color={roleColor('muted')}>+{hidden} more</Text> : null}
    </Box>
  );
}

/** `4.2k tok · $0.03`: the child's usage with its own sub-agents', or undefined before it used any. */
function spentOn(state: UiState, childId: string): string | undefined {
  const totals = subtreeTotals(state, childId);
  return totals.tokens > 0 ? `${formatTokens(totals.tokens)} · ${formatCost(totals.cost)}` : undefined;
}

function failureReason(call: ToolCallItem, statusReason: string | undefined): string | undefined {
  if (statusReason) return oneLine(statusReason);
  const body = reportText(call).trim();
  if (!body) return undefined;
  const lines = body.split('\n');
  return oneLine(lines[lines.length - 1] ?? '');
}

/**
 * A teammate's state as the team names it (`working`, `idle`, `ended`, `failed`), with the task
 * it holds, and the block state that draws its glyph: working spins, idle waits like a queued task.
 */
function teammateLine(status: SessionStatus, held: { id: string; title: string } | undefined): { state: TaskState; words: string } {
  const [state, word]: [TaskState, string] =
    status === 'running' || status === 'queued'
      ? ['running', 'working']
      : status === 'idle' || status === 'cancelled'
        ? ['queued', 'idle']
        : status === 'completed' || status === 'limited'
          ? ['completed', 'ended']
          : ['failed', 'failed'];
  return { state, words: held && word === 'working' ? `${word} on #${held.id} ${oneLine(held.title)}` : held ? `${word} · holds #${held.id} ${oneLine(held.title)}` : word };
}
