// The live region's row budget for one frame. Contract: given what the screen is about to
// draw below <Static> (live transcript entries, the dialog, notices, the prompt's rows) and
// the terminal size, it returns how many recent tool lines the transcript may show, whether
// it must be clipped, how many rows the dialog's subject gets, whether the dialogs go
// compact, and the rows an overlay panel may use. Pure and synchronous: the same render that
// draws the frame counts it, so an oversized frame never reaches the terminal
// (see ../screens/live-layout.ts for the row counting itself).
import { approvalChromeRows, choiceRows, diffRows, subjectTextRows } from '../components/dialogs/ApprovalDialog.js';
import { askUserRows } from '../components/dialogs/AskUserDialog.js';
import type { DiffLine } from '../render/diff-lines.js';
import { entryRows, fitLive, MIN_SUBJECT_ROWS, taskBlockRows, textRows, type LiveLayout } from '../screens/live-layout.js';
import { isTaskCall, type TranscriptEntry } from '../state/selectors.js';
import type { PendingPermission, PendingQuestion, ToolCallItem, UiState } from '../state/types.js';

export interface LiveBudgetInput {
  state: UiState;
  /** The viewed session's live (not yet printed) entries. */
  live: readonly TranscriptEntry[];
  /** Terminal size; `rows` is 0 or undefined when the terminal reports none. */
  rows: number | undefined;
  width: number;
  /** The prompt's own rows (text, menu) as it reports them. */
  inputRows: number;
  /** Queued prompts listed above the prompt (none in a child view). */
  queuedRows: number;
  notice: string | undefined;
  /** One-row lines drawn above the prompt besides the notice (the block-selection hint). */
  hintRows?: number;
  thinking: boolean;
  /** The "working…" line is shown. */
  working: boolean;
  expanded: boolean;
  permission: PendingPermission | undefined;
  question: PendingQuestion | undefined;
  /** The lines naming who else waits behind the open dialog. */
  waiting: readonly string[];
  /** The permission's subject as diff lines, when it is an edit. */
  diffLines: readonly DiffLine[] | undefined;
  /** Calls whose diff is in the approval dialog and left out of the transcript. */
  hideDiff: (call: ToolCallItem) => boolean;
}

export interface LiveBudget {
  layout: LiveLayout;
  /** Rows an open panel (help, agents, the picker) may take in the live region's place. */
  overlayRows: number;
  /** Rows the approval dialog's choices take at full width. */
  approvalChoices: number;
  compactApproval: boolean;
  compactQuestion: boolean;
}

export function liveBudget(input: LiveBudgetInput): LiveBudget {
  const { state, live, width, expanded, permission, question, waiting, diffLines } = input;
  const questionRows = (compact: boolean) =>
    question ? askUserRows({ question: question.question, options: question.options, waiting }, width, compact) : undefined;
  const rowOptions = { state, width, expanded, hideDiff: input.hideDiff };
  const untasked = live.filter((e) => !isTaskCall(e.item));
  const tasks = live.filter((e): e is typeof e & { item: ToolCallItem } => isTaskCall(e.item));
  const untaskedRows = untasked.reduce((n, e) => n + entryRows(e, { ...rowOptions, latestTools: 0 }), 0);
  const rows = input.rows || 24;
  const fixedRows = input.inputRows + input.queuedRows + 1 + (input.hintRows ?? 0) + (input.notice ? textRows(input.notice, width) : 0) + (input.thinking ? 1 : 0) + (input.working ? 1 : 0);
  // An open panel (help, agents, the picker) takes the live region's place and scrolls within it.
  const overlayRows = Math.max(6, rows - 1 - fixedRows);
  // On a short screen the approval dialog drops its margins and lists the choices on one
  // row, so its header (who asks, which tool) and the command stay in view.
  const approvalChoices = permission ? choiceRows(permission.always, width - 4) : 4;
  const compactApproval = permission !== undefined && rows - 1 - fixedRows - approvalChromeRows(waiting.length, width, false, approvalChoices, permission.reason, permission.always) < MIN_SUBJECT_ROWS;
  const compactQuestion = !permission && question !== undefined && rows - 1 - fixedRows - (questionRows(false)?.chromeRows ?? 0) < MIN_SUBJECT_ROWS;
  const asked = questionRows(compactQuestion);
  const layout = fitLive({
    rows,
    fixedRows,
    dialog: permission
      ? { chromeRows: approvalChromeRows(waiting.length, width, compactApproval, approvalChoices, permission.reason, permission.always), subjectRows: diffLines ? diffRows(diffLines) : subjectTextRows(permission.tool, permission.subject, width - 4) }
      : asked
        ? { chromeRows: asked.chromeRows, subjectRows: asked.questionRows }
        : undefined,
    transcriptRows: (latestTools) => untaskedRows + tasks.reduce((n, e) => n + taskBlockRows(state, e.item, latestTools, 0, 2, 3, expanded), 0),
  });
  return { layout, overlayRows, approvalChoices, compactApproval, compactQuestion };
}
