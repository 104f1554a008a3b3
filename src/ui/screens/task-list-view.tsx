// The team's shared task list (DESIGN §24), opened with `keybinds.team_tasks` (Ctrl+T, as in
// Claude Code) or `/tasks`. Contract: one row per task of the root's list, in id order — id,
// status, title, owner (named as the screen names sessions, with the owner's state) and what
// blocks it; ↑/↓ select, Enter asks `onOpen` to open the owner's session view (`lead` is the
// root), Esc or `q` closes. The list is read from the core when the view opens and again on
// each `team.task` event of this tree, only while it is open. Taller than its rows, it
// scrolls to keep the selected task in view; every string is cut to one row.
import { Box, Text } from 'ink';
import { useEffect, useState } from 'react';
import { useRefState } from '../keys/ref-state.js';
import type { PublicTeamTask } from '../../core/team/task-list.js';
import { terminalSafe } from '../../core/text/terminal-safe.js';
import type { UiCore } from '../core-api.js';
import { useKeys } from '../keys/key-router.js';
import { oneLine, padEnd, truncate } from '../render/text.js';
import { roleColor } from '../theme.js';

/** Border (2), title and footer rows around the list. */
export const TASK_LIST_CHROME_ROWS = 4;

const STATUS_WORDS: Record<PublicTeamTask['status'], string> = {
  pending: 'pending',
  in_progress: 'working',
  completed: 'done',
};

const STATUS_GLYPHS: Record<PublicTeamTask['status'], string> = {
  pending: '○',
  in_progress: '◐',
  completed: '✓',
};

/** The root's tasks, read again on each `team.task` event of its tree while mounted. */
export function useTeamTasks(core: UiCore, rootId: string): { tasks: PublicTeamTask[]; error?: string } {
  const read = (): { tasks: PublicTeamTask[]; error?: string } => {
    try {
      return { tasks: core.teamTasks?.(rootId) ?? [] };
    } catch (err) {
      return { tasks: [], error: err instanceof Error ? err.message : String(err) };
    }
  };
  const [list, setList] = useState(read);
  useEffect(() => {
    setList(read());
    return core.on((event) => {
      if (event.type === 'team.task' && event.path[0] === rootId) setList(read());
    });
    // `read` closes over core and rootId only.
  }, [core, rootId]);
  return list;
}

export interface TaskListViewProps {
  tasks: readonly PublicTeamTask[];
  /** Why the list could not be read, if it could not. */
  error?: string | undefined;
  /** How an owner is named on screen: `lead`, `backend (idle)`, `explore (Find routes) · working`. */
  ownerLabel: (task: PublicTeamTask) => string;
  onOpen: (task: PublicTeamTask) => void;
  onClose: () => void;
  width: number;
  /** Rows the panel may take, border included. */
  maxRows?: number | undefined;
}

export function TaskListView({ tasks, error, ownerLabel, onOpen, onClose, width, maxRows }: TaskListViewProps) {
  const muted = roleColor('muted');
  // Read by the key handler synchronously: `↓ Enter` in one write opens the second task.
  const [getSelected, setSelected] = useRefState(0);
  const clamp = (i: number) => Math.min(i, Math.max(0, tasks.length - 1));
  const current = clamp(getSelected());
  const room = Math.max(1, (maxRows ?? Number.POSITIVE_INFINITY) - TASK_LIST_CHROME_ROWS);
  const top = Math.max(0, Math.min(current - room + 1, tasks.length - room));
  useKeys((input, key) => {
    const at = clamp(getSelected());
    if (key.escape || input === 'q') onClose();
    else if (key.upArrow || input === 'k') setSelected(Math.max(0, at - 1));
    else if (key.downArrow || input === 'j') setSelected(clamp(at + 1));
    else if (key.return && tasks[at]) onOpen(tasks[at]);
    else if (key.return) onClose();
  });
  // Inside the border (2) and padding (2).
  const inner = Math.max(10, width - 4);
  const idWidth = Math.max(1, ...tasks.map((t) => t.id.length));
  const shown = tasks.slice(top, top + room);
  const done = tasks.filter((t) => t.status === 'completed').length;
  return (
    <Box flexDirection="column" borderStyle="round" paddingX={1} flexShrink={0}>
      <Text bold wrap="truncate-end">
        Team tasks{tasks.length > 0 ? <Text color={muted}>{` · ${done} of ${tasks.length} done`}</Text> : null}
      </Text>
      {error ? (
        <Text color={roleColor('error')} wrap="truncate-end">
          {terminalSafe(oneLine(error))}
        </Text>
      ) : tasks.length === 0 ? (
        <Text wrap="truncate-end">No tasks yet (the agents keep them with the task_list tool).</Text>
      ) : (
        shown.map((task, i) => {
          const isSelected = top + i === current;
          return (
            <Text key={task.id} wrap="truncate-end" inverse={isSelected}>
              {taskRow(task, { selected: isSelected, idWidth, width: inner, owner: ownerLabel(task) })}
            </Text>
          );
        })
      )}
      <Text color={muted} wrap="truncate-end">
        {tasks.length === 0 ? 'Esc closes' : `↑↓ select · Enter opens the owner · Esc closes${tasks.length > room ? ` (${top + 1}–${top + shown.length} of ${tasks.length})` : ''}`}
      </Text>
    </Box>
  );
}

/**
 * One task as one row of `width` cells: `› 3 ◐ working Write the tests · backend (working) · after 1, 2`.
 * The title gives way first, then the owner, so the id and status always show.
 */
export function taskRow(task: PublicTeamTask, o: { selected: boolean; idWidth: number; width: number; owner: string }): string {
  const head = `${o.selected ? '›' : ' '} ${task.id.padStart(o.idWidth)} ${STATUS_GLYPHS[task.status]} ${padEnd(STATUS_WORDS[task.status], 7)} `;
  const blocked = task.blocked_by.length > 0 && task.status !== 'completed' ? ` · after ${task.blocked_by.join(', ')}` : '';
  const owner = ` · ${terminalSafe(oneLine(o.owner))}`;
  const title = terminalSafe(oneLine(task.title));
  const left = o.width - head.length;
  // The owner and blockers keep up to half the room; the title takes the rest.
  const tail = truncate(`${owner}${blocked}`, Math.max(0, Math.floor(left / 2)));
  return truncate(`${head}${truncate(title, Math.max(4, left - tail.length))}${tail}`, o.width);
}
