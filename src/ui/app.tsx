// The whole interactive screen. It subscribes to core events (through a frame scheduler so
// a burst of deltas costs one render), draws the viewed session's transcript, the pending
// question/approval queue and the input, and turns keys into core API calls. No agent
// logic lives here.
import { Box, Static, Text, useApp, useStdout } from 'ink';
import { useCallback, useEffect, useMemo, useRef, useState, type ReactNode } from 'react';
import type { PermissionReply } from '../core/events.js';
import { errorMessage } from '../core/errors.js';
import { knownModels } from '../core/provider/models.js';
import type { SessionRow } from '../core/store/index.js';
import type { UiCore } from './core-api.js';
import { ApprovalDialog, diffRows, fitDiffLines } from './components/dialogs/ApprovalDialog.js';
import { AskUserDialog } from './components/dialogs/AskUserDialog.js';
import { PromptInput } from './components/input/PromptInput.js';
import { DOUBLE_ESCAPE_MS, EXIT_WINDOW_MS } from './components/input/prompt-state.js';
import type { NamedItem } from './components/input/completion.js';
import { PICKER_CHROME_ROWS, SessionPicker } from './components/session-picker.js';
import { StatusLine } from './components/status-line.js';
import { ToolCall } from './components/transcript/ToolCall.js';
import { TranscriptEntryView } from './components/transcript/TranscriptItem.js';
import { BlockHintContext } from './components/tree/block-hint.js';
import { BlockSelectionContext } from './components/tree/block-selection.js';
import { useNow } from './components/tree/use-now.js';
import { HelpView, AgentsView, McpView, SkillsView } from './screens/info-views.js';
import { ShellsView } from './screens/shells-view.js';
import { ShellOutputView } from './screens/shell-output-view.js';
import { TaskListView, useTeamTasks } from './screens/task-list-view.js';
import { AgentsPanel, agentsPanelBudget, agentsPanelRows, liveAgents } from './screens/agents-panel.js';
import type { PublicTeamTask } from '../core/team/task-list.js';
import { memberState, LEAD } from '../core/team/members.js';
import { KeyRouter, useKeys, useLeaderPending } from './keys/key-router.js';
import { createKeymap, type KeybindConfig, type KeymapAction } from './keys/keymap.js';
import { navigate, siblingPosition } from './navigation.js';
import { parseUnifiedDiff, type DiffLine } from './render/diff-lines.js';
import { DiffView } from './render/diff-view.js';
import { loadHighlighter } from './render/highlight.js';
import { loadMarkdown } from './render/markdown.js';
import { commandMenu } from './slash.js';
import { liveBudget } from './app/live-budget.js';
import { handleSlash, openRewind, runRewind, type Overlay, type SlashContext } from './app/slash-commands.js';
import { RewindView } from './screens/rewind-view.js';
import { ConfirmLine } from './components/dialogs/ConfirmLine.js';
import { childrenNeedingChanges, loadChanges, loadDiffStats, revertCheck, revertedNotice, revertQuestion } from './app/child-changes.js';
import { usePromptQueue } from './app/use-prompt-queue.js';
import { useNotice } from './app/use-notice.js';
import { useBlockSelection } from './app/use-block-selection.js';
import { selectableBlocks, selectionHint } from './app/block-selection.js';
import { useRunningShells } from './app/use-running-shells.js';
import { nextCycledMode, type PermissionMode } from '../core/permission/modes.js';
import {
  agentPath,
  createUiStore,
  formatRetry,
  FrameScheduler,
  isTaskCall,
  loadTree,
  pendingRetry,
  queuedCount,
  runningCount,
  sessionLabel,
  startingCount,
  subtreeTotals,
  transcriptView,
  type TranscriptEntry,
  type UiState,
  type UiStore,
} from './state/index.js';
import { useVisibleState } from './state/use-visible-state.js';
import type { CoreEvent } from '../core/events.js';
import { useTerminalFocus } from './notify/focus.js';
import { useNotifications, type NotifySettings } from './notify/use-notifications.js';
import type { PendingPermission, PendingQuestion, ToolCallItem } from './state/types.js';
import { agentColor, MAX_WIDTH, roleColor, SPINNER_FRAMES } from './theme.js';

/** What `/model ` completes to. */
const MODELS: readonly NamedItem[] = knownModels();

/** The empty prompt while a block is selected: keys go to the selection, not here. */
const SELECTING_PLACEHOLDER = 'esc to type here';

/** A session's title until its first prompt names it (the engine's default). */
const DEFAULT_TITLE = 'New session';
export { INTERRUPTED } from './app/use-prompt-queue.js';

/** Clears the screen and scrollback so a remounted <Static> starts on a clean terminal. */
const CLEAR_SCREEN = '\u001B[2J\u001B[3J\u001B[H';

export interface AppProps {
  core: UiCore;
  /** The root session shown first (new or resumed). */
  rootId: string;
  keybinds?: KeybindConfig;
  /** Sent as the first prompt once the screen is up. */
  initialPrompt?: string;
  /** A line printed above the transcript, e.g. the demo label. */
  banner?: string;
  inputHistory?: { entries: readonly string[]; append(entry: string): void };
  completeFile?: (prefix: string) => readonly string[];
  agentColors?: Readonly<Record<string, string>>;
  onExit?: () => void;
  /** Start with the session picker open (`-r` without an id). */
  openPicker?: boolean;
  /** Terminal notifications (config `notify`); none when absent. */
  notify?: NotifySettings;
  /** What the terminal says about itself (TERM, TERM_PROGRAM, TMUX); defaults to process.env. */
  env?: NodeJS.ProcessEnv;
}

type StaticEntry = { key: string; header: true } | (TranscriptEntry & { header?: false });

/** The live sub-agents panel: hidden, shown while the prompt has the keys, or shown with them. */
type PanelMode = 'hidden' | 'shown' | 'focused';

export function App(props: AppProps) {
  const keymap = useMemo(() => createKeymap(props.keybinds ?? {}), [props.keybinds]);
  const [viewId, setViewId] = useState(props.rootId);
  const [rootId, setRootId] = useState(props.rootId);
  const [epoch, setEpoch] = useState(0);
  const [overlay, setOverlay] = useState<Overlay>(props.openPicker ? { kind: 'picker' } : undefined);
  // The live sub-agents panel: it stays across turns until hidden; focused, it has the keys.
  const [panel, setPanel] = useState<PanelMode>('hidden');
  const { stdout, write } = useStdout();

  const { store, frames } = useMemo(() => {
    const s = createUiStore();
    // Loaded before the scheduler takes its first snapshot, so the first frame shows it.
    loadTree(props.core, s, props.rootId, true);
    return { store: s, frames: new FrameScheduler(s) };
    // The initial root only: later roots are loaded by openRoot.
  }, []);
  useEffect(() => () => frames.dispose(), [frames]);
  // After the first frame is on screen.
  useEffect(() => {
    void loadMarkdown();
    void loadHighlighter();
  }, []);
  useEffect(() => props.core.on((event) => store.dispatch(event)), [props.core, store]);
  // Subscribed after the store, so a waiting session is already in it when it is named.
  const focused = useTerminalFocus();
  const core = props.core;
  const onCoreEvent = useCallback((listener: (event: CoreEvent) => void) => core.on(listener), [core]);
  useNotifications({
    on: onCoreEvent,
    rootId,
    settings: props.notify,
    focused,
    label: (id) => agentPath(store.getState(), id),
    // Zero-width escapes (or a bell): written past Ink, they leave the frame as it is.
    write: (sequence) => stdout.write(sequence),
    ...(props.env ? { env: props.env } : {}),
  });

  // A clean re-print: clear the terminal, then remount <Static> under a new key.
  const repaint = useCallback(() => {
    write(CLEAR_SCREEN);
    setEpoch((e) => e + 1);
  }, [write]);

  useEffect(() => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const onResize = () => {
      clearTimeout(timer);
      timer = setTimeout(repaint, 80);
    };
    stdout.on('resize', onResize);
    return () => {
      clearTimeout(timer);
      stdout.off('resize', onResize);
    };
  }, [stdout, repaint]);

  const showView = useCallback(
    (id: string) => {
      if (id === viewId) return;
      loadTree(props.core, store, id, false);
      setViewId(id);
      repaint();
    },
    [viewId, props.core, store, repaint],
  );

  const openRoot = useCallback(
    (id: string, opts: { reload?: boolean } = {}) => {
      loadTree(props.core, store, id, true, opts);
      // The remounted <Static> prints once: it must print the reloaded items, not the last frame's.
      frames.flush();
      setRootId(id);
      setViewId(id);
      repaint();
    },
    [props.core, store, frames, repaint],
  );

  const revertKey = useRef<(() => Promise<void>) | undefined>(undefined);
  const selectKey = useRef<(() => void) | undefined>(undefined);
  const onAction = useCallback(
    (action: KeymapAction) => {
      if (action === 'session_list') {
        setOverlay({ kind: 'picker' });
        return;
      }
      if (action === 'session_child_revert') {
        // The screen holds the notice and the viewed state: it asks, then reverts. Keys behind
        // it wait for the question (a `y` in the same write answers it).
        return revertKey.current?.();
      }
      if (action === 'session_child_select') {
        selectKey.current?.();
        // Keys in the same write (`ctrl+x s ↑`) act once the selection is drawn.
        return Promise.resolve();
      }
      if (action === 'team_tasks') {
        // Not over a dialog (its answer has the keys) nor over another panel.
        const { permissions, questions } = store.getState();
        if (permissions.length > 0 || questions.length > 0) return;
        if (overlay?.kind === 'tasks') setOverlay(undefined);
        else if (!overlay) setOverlay({ kind: 'tasks' });
        // Keys in the same write (`ctrl+t ↓ enter`) act once the list is drawn.
        return Promise.resolve();
      }
      if (action === 'agents_panel') {
        setPanel((mode) => (mode === 'focused' ? 'hidden' : 'focused'));
        return Promise.resolve();
      }
      if (action === 'session_child_cancel') {
        // This child alone: its parent gets state="cancelled" for the call and goes on.
        const node = store.getState().sessions[viewId];
        if (node?.parentId && (node.status === 'running' || node.status === 'queued')) props.core.cancel(viewId);
        return;
      }
      const next = navigate(store.getState(), viewId, action);
      showView(next);
    },
    [store, viewId, showView, props.core, overlay],
  );

  // What a running task block says about its per-child keys (DESIGN §23).
  const blockHint = useMemo(() => `ctrl+b background · ${describeKey(props.keybinds, 'session_child_cycle')} to steer or cancel`, [props.keybinds]);

  return (
    <KeyRouter keymap={keymap} onAction={onAction}>
      <BlockHintContext.Provider value={blockHint}>
        <Screen
          {...props}
          store={store}
          frames={frames}
          rootId={rootId}
          viewId={viewId}
          epoch={epoch}
          overlay={overlay}
          setOverlay={setOverlay}
          panel={panel}
          setPanel={setPanel}
          openRoot={openRoot}
          showView={showView}
          repaint={repaint}
          revertKey={revertKey}
          selectKey={selectKey}
        />
      </BlockHintContext.Provider>
    </KeyRouter>
  );
}

interface ScreenProps extends AppProps {
  store: UiStore;
  frames: FrameScheduler<UiState>;
  viewId: string;
  epoch: number;
  overlay: Overlay;
  setOverlay: (o: Overlay) => void;
  panel: PanelMode;
  setPanel: (mode: PanelMode) => void;
  /** `reload`: read the stored transcript again though the UI followed it live (after undo, redo, rewind). */
  openRoot: (id: string, opts?: { reload?: boolean }) => void;
  showView: (id: string) => void;
  repaint: () => void;
  /** Set by the screen: what the revert key does in the view on screen; settles once it asked. */
  revertKey: { current: (() => Promise<void>) | undefined };
  /** Set by the screen: what the block-selection key does in the view on screen. */
  selectKey: { current: (() => void) | undefined };
}

function Screen(props: ScreenProps) {
  const { core, store, frames, rootId, viewId, overlay, setOverlay, panel, setPanel } = props;
  // Built-in Claude names plus the models the config lists under its providers.
  const models = useMemo<readonly NamedItem[]>(() => core.modelChoices?.() ?? MODELS, [core]);
  // With the panel on, what it shows of the whole tree is drawn too, whichever view is open.
  const state = useVisibleState(frames, viewId, Date.now, panel === 'hidden' ? undefined : rootId);
  const { notice, setNotice } = useNotice(state);
  const { exit } = useApp();
  const { stdout } = useStdout();
  // The whole terminal width; MAX_WIDTH only when the terminal reports none.
  const width = stdout.columns || MAX_WIDTH;
  const leaderPending = useLeaderPending();
  const [row, setRow] = useState<SessionRow | undefined>(() => core.history(rootId)?.session);
  const [history, setHistory] = useState<readonly string[]>(props.inputHistory?.entries ?? []);
  const commands: NamedItem[] = useMemo(() => commandMenu(core.commands()), [core]);
  // The prompt's own rows (text, menu), as it reports them; an empty prompt takes three.
  const [inputRows, setInputRows] = useState(3);

  useEffect(() => setRow(core.history(rootId)?.session), [core, rootId]);
  // The core titles a new session from its first prompt without an event of its own: read
  // the stored row again once the model starts answering, until it has a real title.
  const titled = row !== undefined && row.title !== DEFAULT_TITLE;
  useEffect(() => {
    if (titled) return;
    return core.on((e) => {
      if (e.session_id !== rootId || e.type !== 'message.started') return;
      const fresh = core.history(rootId)?.session;
      if (fresh && fresh.title !== DEFAULT_TITLE) setRow(fresh);
    });
  }, [core, rootId, titled]);

  const view = transcriptView(state, viewId);
  const viewed = state.sessions[viewId];
  const isChildView = viewId !== rootId && Boolean(viewed?.parentId);
  const active = Object.values(state.sessions).some((s) => s.status === 'running' || s.status === 'queued');
  // Spinners and elapsed times need only a few updates a second; every frame costs a full redraw.
  const now = useNow(active, 250);

  const queue = usePromptQueue({ core, store, rootId, agent: row?.agent, onNotice: setNotice });
  const steering = useMemo(() => (isChildView && viewed ? steeringTarget(viewed.agent, viewed.description || viewed.title, viewed.status) : undefined), [isChildView, viewed?.agent, viewed?.description, viewed?.title, viewed?.status]);
  const runningShells = useRunningShells(core);
  const shellCount = runningShells.length;
  const { queued, send } = queue;

  const onSubmit = useCallback(
    (text: string) => {
      const trimmed = text.trim();
      if (!trimmed) return;
      setNotice(undefined);
      props.inputHistory?.append(text);
      setHistory((h) => [...h, text]);
      const slash: SlashContext = {
        core,
        rootId,
        row,
        setRow,
        notify: setNotice,
        setOverlay,
        openRoot: props.openRoot,
        exit: () => {
          props.onExit?.();
          exit();
        },
        queue,
      };
      if (handleSlash(trimmed, commands, slash)) return;
      if (steering) {
        // A sub-agent's view sends to that sub-agent (DESIGN §23); the root's queue is not involved.
        try {
          const { outcome, delivery } = core.sendToSession(viewId, text);
          const target = viewId;
          // Each goes when it stops being true: once the child has read the message (or it was
          // dropped, which the view shows), or once the continued child is no longer running.
          if (outcome === 'queued') setNotice(`Queued for ${steering.label}: it reads it at its next step.`, { until: delivery });
          else setNotice(`Continuing ${steering.label}; its new result goes to its parent.`, { until: delivery.then((d) => (d.delivered ? settledRun(core, target) : undefined)) });
        } catch (err) {
          setNotice(errorMessage(err));
        }
        return;
      }
      queue.submit(text);
    },
    [commands, core, exit, props, queue, rootId, row, setOverlay, steering, viewId],
  );

  // The first prompt from the command line, once.
  const started = useRef(false);
  useEffect(() => {
    if (started.current || !props.initialPrompt) return;
    started.current = true;
    send(props.initialPrompt);
  }, [props.initialPrompt, send]);

  // The tree's permission mode (DESIGN §26), kept by the core per root; Shift+Tab moves it on.
  const [permissionMode, setPermissionMode] = useState<PermissionMode>(() => core.permissionMode?.(props.rootId) ?? 'default');
  useEffect(() => setPermissionMode(core.permissionMode?.(rootId) ?? 'default'), [core, rootId]);
  const cycleMode = useCallback(() => {
    if (!core.setPermissionMode) return;
    const next = nextCycledMode(permissionMode);
    core.setPermissionMode(rootId, next);
    setPermissionMode(next);
  }, [core, rootId, permissionMode]);

  const cycleAgent = useCallback(
    (reverse: boolean) => {
      const agents = core.primaryAgents();
      if (agents.length < 2 || !row) return;
      const at = agents.findIndex((a) => a.name === row.agent);
      const next = agents[(at + (reverse ? agents.length - 1 : 1)) % agents.length]!;
      try {
        setRow(core.setAgent(rootId, next.name));
      } catch (err) {
        setNotice(errorMessage(err));
      }
    },
    [core, rootId, row],
  );

  // The draft a rewind puts back; a new id each time so the same text can be put back twice.
  const [fill, setFill] = useState<{ id: number; text: string }>();
  // When an Esc last stopped a running turn: a second Esc right after is not Esc Esc.
  const interruptedTurnAt = useRef(0);

  // The block-selection mode: ↑/↓ over this view's sub-agent blocks; the revert key and
  // Ctrl+O then act on the selected one. Its keys wait while a dialog or a panel is open.
  const selection = useBlockSelection({
    store,
    viewId,
    isActive: !overlay && panel !== 'focused' && !leaderPending && state.permissions.length === 0 && state.questions.length === 0,
    repaint: props.repaint,
    onOpen: props.showView,
    onRevert: (childId) => askRevert(childId),
  });
  props.selectKey.current = () => {
    if (!selection.start()) setNotice('No sub-agent blocks in this view to select.');
  };

  // Ctrl+O shows more of every tool call (output, diffs); printed lines need a repaint.
  const [expanded, setExpanded] = useState(false);
  useKeys((input, key) => {
    if (key.ctrl && input === 'o') {
      setExpanded((e) => !e);
      props.repaint();
    }
  });

  // Sub-agents loaded from the store get their diff stat from the core once; their blocks,
  // already printed, are printed again when one of them changed files.
  const { repaint } = props;
  useEffect(() => {
    let live = true;
    void loadDiffStats(core, store).then((changed) => {
      if (!live || !changed) return;
      frames.flush();
      repaint();
    });
    return () => {
      live = false;
    };
  }, [core, store, frames, repaint, rootId, viewId]);

  // Expanded, finished blocks show their sub-agent's diff: fetched once per sub-agent.
  const needingChanges = childrenNeedingChanges(state, viewId)
    .filter((id) => expanded || selection.view.expandedChildIds.has(id))
    .join(' ');
  useEffect(() => {
    if (!needingChanges) return;
    let live = true;
    void loadChanges(core, store, needingChanges.split(' ')).then((changed) => {
      if (!live || !changed) return;
      frames.flush();
      repaint();
    });
    return () => {
      live = false;
    };
  }, [core, store, frames, repaint, needingChanges]);

  // The revert key (DESIGN §18): a finished sub-agent's view (in the root's view, the selected
  // block's sub-agent, else its newest changed one) asks y/n, then reverts its changes.
  const askRevert = (sessionId: string): Promise<void> =>
    revertCheck(core, store.getState(), sessionId).then((check) => {
      if (!check.ok) setNotice(check.notice);
      else setOverlay({ kind: 'revert', sessionId: check.sessionId, label: check.label, question: revertQuestion(check.label, check.stat) });
    });
  props.revertKey.current = () => askRevert(selection.current()?.childId ?? viewId);
  const runRevert = (sessionId: string, label: string) => {
    setOverlay(undefined);
    const revert = core.revertSession?.bind(core);
    if (!revert) return;
    // An overlap with later changes arrives as the core's notice naming the files; nothing changed.
    revert(sessionId).then(
      (outcome) => {
        const state = store.getState();
        const leftAlone = (outcome.left_alone ?? []).map((f) => ({ path: f.path, by: f.also_changed_by.map((id) => (state.sessions[id] ? agentPath(state, id) : id)) }));
        setNotice(revertedNotice(label, outcome.files, leftAlone));
        // Its block is on screen in this view: printed again, it says "reverted".
        if (store.getState().sessions[sessionId]?.parentId === viewId) {
          frames.flush();
          repaint();
        }
      },
      (err: unknown) => setNotice(errorMessage(err)),
    );
  };

  const { permission, question } = useCurrentDialog(state);
  const dialogOpen = Boolean(permission ?? question);
  // Nothing else (a dialog, a panel, a pending leader chord) has the keys. The block-selection
  // mode takes its keys first instead (a shortcut), so a key typed right after Esc ends it
  // reaches the prompt even before the next render.
  const inputActive = !dialogOpen && !overlay && panel !== 'focused' && !leaderPending;

  // Ctrl+B sends running foreground sub-agents to the background (DESIGN §23): in a child's
  // view that child, elsewhere every one the viewed session waits on. Their task calls return
  // at once and their results arrive later, so the parent goes on. A shortcut that consumes
  // the key only when it sent something: with nothing to send, Ctrl+B reaches the prompt and
  // moves the cursor left, as in a shell.
  useKeys(
    (input, key) => {
      if (!key.ctrl || input !== 'b') return false;
      const current = store.getState();
      const targets = isChildView ? [viewId] : runningChildIds(current, viewId);
      const sent = targets.filter((id) => core.isDetachable(id) && core.detach(id));
      if (sent.length === 0) return false;
      setNotice(`Sent to the background: ${sent.map((id) => agentPath(current, id)).join(', ')}. Results arrive when they finish.`, { holds: (s) => isUnderWay(s, sent) });
      return true;
    },
    // Also while a dialog is open: the blocks behind it say `ctrl+b background`.
    { isActive: !overlay && !leaderPending, shortcut: true },
  );

  // Esc in an approval denies and interrupts the asker's turn (a sub-agent's alone: its parent
  // goes on); a second Esc soon after, whatever dialog came next, interrupts the whole turn,
  // so two looping children asking again cannot keep the user clearing dialogs.
  const dialogEscAt = useRef(0);
  // A question's Esc only declines (the asker reads that), but counts as a first Esc.
  const interruptFromDialog = useCallback(
    (sessionId: string | undefined) => {
      const at = Date.now();
      const second = at - dialogEscAt.current <= DIALOG_SECOND_ESCAPE_MS;
      dialogEscAt.current = second ? 0 : at;
      if (second) core.cancel(rootId);
      else if (sessionId !== undefined) core.cancel(sessionId);
    },
    [core, rootId],
  );

  // Ctrl+C twice quits from anywhere: while a dialog or an overlay has the keys, the prompt
  // (which handles Ctrl+C otherwise) never sees it.
  const exitArmedAt = useRef(0);
  useKeys(
    (input, key) => {
      if (!key.ctrl || input !== 'c') return;
      if (Date.now() - exitArmedAt.current <= EXIT_WINDOW_MS) {
        props.onExit?.();
        exit();
        return;
      }
      exitArmedAt.current = Date.now();
      setNotice('Press Ctrl+C again to exit', { forMs: EXIT_WINDOW_MS });
    },
    { isActive: !inputActive },
  );

  // `k` in /shells or in a shell's output: the core's stopShell, as kill_shell.
  const stopShell = (sessionId: string, shellId: string) => {
    setNotice(`Stopping ${shellId}…`);
    void (core.stopShell?.(sessionId, shellId) ?? Promise.resolve(undefined)).then(
      (report) => setNotice(report ? `Stopped ${shellId} and everything it started.` : 'This front end cannot stop shells.'),
      (err: unknown) => setNotice(errorMessage(err)),
    );
  };

  const staticItems: StaticEntry[] = useMemo(() => [{ key: `header:${viewId}`, header: true }, ...view.finished], [view.finished, viewId]);
  const totals = subtreeTotals(state, isChildView ? viewId : rootId);
  const retrying = pendingRetry(state, isChildView ? viewId : rootId);
  const position = isChildView ? siblingPosition(state, viewId) : undefined;
  const subagents: NamedItem[] = useMemo(() => core.subagents().map((a) => ({ name: a.name, description: a.description })), [core]);
  const agentName = isChildView ? (viewed?.agent ?? '') : (row?.agent ?? viewed?.agent ?? '');

  // Whoever else waits behind the open dialog: approvals and questions queue separately.
  const waiting = [
    ...state.questions.filter((q) => q !== question).map((q) => `question from ${agentPath(state, q.sessionId)}`),
    ...(question ? state.permissions.map((p) => `approval from ${agentPath(state, p.sessionId)}`) : []),
  ];
  // The root waits on the model and nothing shows it yet: say so, or the screen looks stuck.
  const working = !isChildView && viewed?.status === 'running' && !viewed.thinking && view.live.length === 0;
  // An edit's diff is in its approval dialog: the live call leaves it out meanwhile.
  const awaitingApproval = (call: ToolCallItem): boolean =>
    permission !== undefined &&
    permission.sessionId === viewId &&
    !call.done &&
    (permission.callId ? call.callId === permission.callId : call.tool === permission.tool);

  // While blocks are selected: which one, of how many, and the keys.
  const selectionLines = selection.selected
    ? selectionHint({ blocks: selectableBlocks(state, viewId), selected: selection.selected, label: agentPath(state, selection.selected.childId), width, strayKey: selection.strayKey })
    : [];

  // The live sub-agents panel, under the dialogs and above the prompt; an open panel (overlay) hides it.
  const agents = panel !== 'hidden' && !overlay ? liveAgents(state, rootId, now) : undefined;
  const panelMaxRows = agentsPanelBudget(stdout.rows || 24);
  const panelRows = agents ? agentsPanelRows(agents.length, panelMaxRows) : 0;

  // Everything below <Static> must fit the terminal (see app/live-budget.ts).
  const diffLines = useMemo(() => (permission?.permission === 'edit' ? parseUnifiedDiff(permission.subject) : undefined), [permission]);
  const { layout, overlayRows, compactApproval, compactQuestion } = liveBudget({
    state,
    live: view.live,
    rows: stdout.rows,
    width,
    inputRows,
    queuedRows: isChildView ? 0 : queued.length,
    notice,
    hintRows: selectionLines.length + panelRows,
    thinking: Boolean(viewed?.thinking),
    working,
    expanded,
    permission,
    question,
    waiting,
    diffLines,
    hideDiff: awaitingApproval,
  });

  const liveEntries = view.live.map((entry) =>
    entry.item.kind === 'tool' && !isTaskCall(entry.item) && awaitingApproval(entry.item) ? (
      <ToolCall key={entry.key} call={entry.item} width={width} now={now} expanded={expanded} hideDiff />
    ) : (
      <TranscriptEntryView
        key={entry.key}
        entry={entry}
        state={state}
        now={now}
        width={width}
        expanded={expanded}
        latestTools={layout.latestTools}
        {...agentColorsProp(props.agentColors)}
      />
    ),
  );

  // Finished blocks read the selection when <Static> prints them again (see repaint).
  const screen = (
    <Box flexDirection="column" width={width}>
      <Static key={`${viewId}:${props.epoch}`} items={staticItems}>
        {(entry) =>
          entry.header ? (
            <Header key={entry.key} banner={props.banner} state={state} viewId={viewId} isChildView={isChildView} />
          ) : (
            <TranscriptEntryView key={entry.key} entry={entry} state={state} now={now} width={width} expanded={expanded} {...agentColorsProp(props.agentColors)} />
          )
        }
      </Static>
      {overlay ? null : layout.transcriptClip === undefined ? (
        liveEntries
      ) : (
        // Taller than its share of the screen: only the newest rows. It all prints once finished.
        <Box flexDirection="column" height={layout.transcriptClip} overflow="hidden" justifyContent="flex-end" flexShrink={0}>
          <Box flexDirection="column" flexShrink={0}>
            {liveEntries}
          </Box>
        </Box>
      )}
      {viewed?.thinking ? <Text color={roleColor('muted')}>thinking…</Text> : null}
      {working ? (
        <Text color={roleColor('muted')} wrap="truncate-end">
          <Text color={roleColor('running')}>{SPINNER_FRAMES[Math.floor(now / 80) % SPINNER_FRAMES.length]}</Text> working… Esc to interrupt
        </Text>
      ) : null}
      {permission ? (
        <ApprovalDialog
          key={permission.requestId}
          asker={agentPath(state, permission.sessionId)}
          tool={permission.tool}
          subject={permission.subject}
          {...(permission.file !== undefined ? { file: permission.file } : {})}
          {...(permission.always ? { always: permission.always } : {})}
          {...(permission.reason !== undefined ? { reason: permission.reason } : {})}
          renderSubject={diffLines ? (_subject, maxLines) => <SubjectDiff lines={diffLines} maxRows={maxLines} width={width - 4} /> : undefined}
          maxSubjectLines={layout.subjectRows}
          compact={compactApproval}
          waiting={waiting}
          position={state.permissions.indexOf(permission) + 1}
          total={state.permissions.length}
          onReply={(reply: PermissionReply, note?: string) => core.replyPermission(permission.requestId, reply, note)}
          onEscape={() => interruptFromDialog(permission.sessionId)}
        />
      ) : null}
      {question ? (
        <AskUserDialog
          key={question.questionId}
          asker={agentPath(state, question.sessionId)}
          question={question.question}
          options={question.options}
          position={state.questions.indexOf(question) + 1}
          total={state.questions.length}
          waiting={waiting}
          maxQuestionRows={layout.subjectRows}
          compact={compactQuestion}
          onAnswer={(text) => core.answerQuestion(question.questionId, text)}
          onDecline={() => {
            core.declineQuestion(question.questionId);
            interruptFromDialog(undefined);
          }}
        />
      ) : null}
      {overlay?.kind === 'picker' ? (
        <SessionPicker
          sessions={core.listRoots()}
          maxVisible={Math.max(1, Math.min(10, overlayRows - PICKER_CHROME_ROWS))}
          onSelect={(id) => {
            setOverlay(undefined);
            props.openRoot(id);
          }}
          onCancel={() => setOverlay(undefined)}
        />
      ) : null}
      {overlay?.kind === 'help' ? <HelpView keymap={props.keybinds} commands={commands} maxRows={overlayRows} onClose={() => setOverlay(undefined)} /> : null}
      {overlay?.kind === 'mcp' ? <McpView states={overlay.states} agentStates={overlay.agentStates} maxRows={overlayRows} onClose={() => setOverlay(undefined)} /> : null}
      {overlay?.kind === 'shell-output' ? (
        <ShellOutputView
          core={core}
          sessionId={overlay.sessionId}
          shellId={overlay.shellId}
          command={overlay.command}
          label={agentPath(state, overlay.sessionId)}
          width={width}
          maxRows={overlayRows}
          onStop={() => stopShell(overlay.sessionId, overlay.shellId)}
          onBack={() => setOverlay({ kind: 'shells', back: { sessionId: overlay.sessionId, shellId: overlay.shellId } })}
        />
      ) : null}
      {overlay?.kind === 'shells' ? (
        <ShellsView
          shells={runningShells}
          initial={overlay.back}
          onOpen={(shell) => setOverlay({ kind: 'shell-output', sessionId: shell.sessionId, shellId: shell.shellId, command: shell.command })}
          sessionLabel={(id) => agentPath(state, id)}
          now={Date.now()}
          maxRows={overlayRows}
          onStop={(shell) => stopShell(shell.sessionId, shell.shellId)}
          onClose={() => setOverlay(undefined)}
        />
      ) : null}
      {overlay?.kind === 'skills' ? <SkillsView catalogue={core.skills?.()} maxRows={overlayRows} onClose={() => setOverlay(undefined)} /> : null}
      {overlay?.kind === 'agents' ? <AgentsView primary={core.primaryAgents()} subagents={core.subagents()} maxRows={overlayRows} onClose={() => setOverlay(undefined)} /> : null}
      {overlay?.kind === 'rewind' ? (
        <RewindView
          prompts={overlay.prompts}
          maxRows={overlayRows}
          onClose={() => setOverlay(undefined)}
          onPick={(messageId, mode) => {
            setOverlay(undefined);
            runRewind(messageId, mode, {
              core,
              rootId,
              notify: setNotice,
              openRoot: props.openRoot,
              queue,
              fillInput: (text) => setFill((f) => ({ id: (f?.id ?? 0) + 1, text })),
            });
          }}
        />
      ) : null}
      {overlay?.kind === 'revert' ? (
        <ConfirmLine question={overlay.question} onYes={() => runRevert(overlay.sessionId, overlay.label)} onNo={() => setOverlay(undefined)} />
      ) : null}
      {agents ? (
        <AgentsPanel
          agents={agents}
          now={now}
          width={width}
          maxRows={panelMaxRows}
          // A dialog takes the keys from it meanwhile: Enter must not both answer and open a view.
          focused={panel === 'focused' && !dialogOpen}
          toggleKey={describeKey(props.keybinds, 'agents_panel')}
          onOpen={(id) => {
            setPanel('shown');
            props.showView(id);
          }}
          onBlur={() => setPanel('shown')}
        />
      ) : null}
      {overlay?.kind === 'tasks' ? (
        <TeamTasks
          core={core}
          rootId={rootId}
          state={state}
          width={width}
          maxRows={overlayRows}
          onOpen={(task) => {
            const target = ownerSession(task, rootId);
            if (!target) {
              setNotice(`Task ${task.id} has no owner yet.`);
              return;
            }
            setOverlay(undefined);
            props.showView(target);
          }}
          onClose={() => setOverlay(undefined)}
        />
      ) : null}
      {selectionLines.map((line, i) => (
        <Text key={i} bold={!line.warning} color={line.warning ? roleColor('warning') : undefined} wrap="truncate-end">
          {line.text}
        </Text>
      ))}
      {notice ? <Text color={roleColor('warning')}>{notice}</Text> : null}
      <PromptInput
        onSubmit={onSubmit}
        onInterrupt={() => {
          if (core.isRunning(rootId) || queue.isBusy()) interruptedTurnAt.current = Date.now();
          // Commands waiting for the turn would act on a state the user just chose to stop.
          const dropped = queue.dropCommands();
          if (dropped.length > 0) setNotice(`Dropped the queued ${dropped.join(', ')}.`);
          core.cancel(rootId);
        }}
        onExitRequest={() => {
          props.onExit?.();
          exit();
        }}
        onRewind={() => {
          // While a turn runs the second Esc interrupts too, as a single one would.
          if (core.isRunning(rootId)) {
            core.cancel(rootId);
            return;
          }
          // Esc Esc in a sub-agent's view, or right after an Esc stopped a turn, is not a rewind.
          if (isChildView || Date.now() - interruptedTurnAt.current < DOUBLE_ESCAPE_MS) return;
          openRewind({ core, rootId, notify: setNotice, setOverlay, queue });
        }}
        fill={fill}
        onCycleAgent={cycleAgent}
        onCycleMode={cycleMode}
        history={history}
        commands={commands}
        subagents={subagents}
        models={models}
        {...(props.completeFile ? { completeFile: props.completeFile } : {})}
        queued={queued}
        isActive={inputActive}
        showCursor={!selection.selected}
        prompt={agentName}
        promptColor={agentColor(agentName, props.agentColors?.[agentName])}
        width={width}
        onRowsChange={setInputRows}
        placeholder={leaderPending ? 'leader…' : selection.selected ? SELECTING_PLACEHOLDER : steering ? steeringHint(steering, props.keybinds) : 'Ask anything · / for commands · @ to mention'}
      />
      <StatusLine
        agent={agentName}
        {...(agentColor(agentName, props.agentColors?.[agentName]) ? { agentColor: agentColor(agentName, props.agentColors?.[agentName])! } : {})}
        model={isChildView ? (core.history(viewId)?.session.model ?? row?.model ?? '') : (row?.model ?? '')}
        tokens={totals.tokens}
        cost={totals.cost}
        {...contextFill(viewed?.contextTokens, isChildView ? core.history(viewId)?.session.model : row?.model, core)}
        running={runningCount(state, rootId)}
        queued={queuedCount(state, rootId)}
        starting={startingCount(state, rootId)}
        shells={shellCount}
        title={isChildView && viewed ? (viewed.description || viewed.title) : (row?.title ?? state.sessions[rootId]?.title ?? '')}
        {...(isChildView && viewed && position ? { view: { label: viewed.agent, index: position.index, total: position.total } } : {})}
        permissionMode={permissionMode}
        {...(retrying ? { retry: formatRetry(retrying.retry, now) } : {})}
        width={width}
      />
    </Box>
  );
  return <BlockSelectionContext.Provider value={selection.view}>{screen}</BlockSelectionContext.Provider>;
}

/** The task list with its tasks read from the core while it is open. */
function TeamTasks(props: { core: UiCore; rootId: string; state: UiState; width: number; maxRows: number; onOpen: (task: PublicTeamTask) => void; onClose: () => void }) {
  const { tasks, error } = useTeamTasks(props.core, props.rootId);
  return (
    <TaskListView
      tasks={tasks}
      error={error}
      ownerLabel={(task) => ownerLabel(props.state, task, props.rootId)}
      onOpen={props.onOpen}
      onClose={props.onClose}
      width={props.width}
      maxRows={props.maxRows}
    />
  );
}

/** The session a task's owner is: its recorded session, `lead` the root; none for an unowned task. */
function ownerSession(task: PublicTeamTask, rootId: string): string | undefined {
  if (task.owner_session_id) return task.owner_session_id;
  return task.owner === LEAD ? rootId : undefined;
}

/** `lead`, `explore (Find routes) · working`, `unowned`: who has the task, and whether it is alive. */
function ownerLabel(state: UiState, task: PublicTeamTask, rootId: string): string {
  if (task.owner === null) return 'unowned';
  const id = ownerSession(task, rootId);
  const node = id ? state.sessions[id] : undefined;
  if (!node || id === rootId) return task.owner === LEAD || id === rootId ? LEAD : task.owner;
  // A teammate is known by its name; another sub-agent by the label the screen gives it.
  const name = task.owner !== id ? task.owner : sessionLabel(node);
  return `${name} · ${memberState(node.status, false)}`;
}

function Header({ banner, state, viewId, isChildView }: { banner?: string | undefined; state: UiState; viewId: string; isChildView: boolean }): ReactNode {
  const node = state.sessions[viewId];
  return (
    <Box flexDirection="column">
      {banner ? <Text color={roleColor('warning')}>{banner}</Text> : null}
      {isChildView && node ? (
        <Text color={roleColor('muted')}>{agentPath(state, viewId)} · sub-agent session · what you type goes to this sub-agent</Text>
      ) : null}
      {!isChildView && node ? <Text color={roleColor('muted')}>{sessionLabel(node)} · {node.title}</Text> : null}
    </Box>
  );
}

/**
 * The dialog on screen: the first approval, else the first question — but one already
 * showing stays until it is answered, so a request arriving meanwhile never swaps a
 * half-typed answer away.
 */
function useCurrentDialog(state: UiState): { permission?: PendingPermission; question?: PendingQuestion } {
  const shown = useRef<{ kind: 'permission' | 'question'; id: string } | undefined>(undefined);
  let permission = shown.current?.kind === 'permission' ? state.permissions.find((p) => p.requestId === shown.current?.id) : undefined;
  let question = shown.current?.kind === 'question' ? state.questions.find((q) => q.questionId === shown.current?.id) : undefined;
  if (!permission && !question) {
    permission = state.permissions[0];
    question = permission ? undefined : state.questions[0];
  }
  // Only remembers which one is up; nothing renders from it.
  shown.current = permission ? { kind: 'permission', id: permission.requestId } : question ? { kind: 'question', id: question.questionId } : undefined;
  return { ...(permission ? { permission } : {}), ...(question ? { question } : {}) };
}

/** An edit's diff in at most `maxRows` rows: less context first, then a "more" line. */
function SubjectDiff({ lines, maxRows, width }: { lines: readonly DiffLine[]; maxRows: number; width: number }) {
  const fitted = useMemo(() => fitDiffLines(lines, maxRows), [lines, maxRows]);
  // DiffView adds its "… N more lines" row below maxLines.
  const maxLines = diffRows(fitted) > maxRows ? Math.max(0, maxRows - 1) : maxRows;
  return <DiffView lines={fitted} maxLines={maxLines} width={width} />;
}

function agentColorsProp(colors: Readonly<Record<string, string>> | undefined) {
  return colors ? { agentColors: colors } : {};
}

/** Where a child view's prompt sends: `explore › Find routes`, and whether it still runs. */
interface SteeringTarget {
  label: string;
  running: boolean;
}

function steeringTarget(agent: string, task: string, status: string): SteeringTarget {
  return { label: task ? `${agent} › ${task}` : agent, running: status === 'running' || status === 'queued' };
}

/** The child view's placeholder: where the prompt sends, and the per-child keys while it runs. */
function steeringHint(target: SteeringTarget, keybinds: KeybindConfig | undefined): string {
  if (!target.running) return `continue ${target.label}`;
  return `to ${target.label} · ${describeKey(keybinds, 'session_child_cancel')} cancel it · ctrl+b background`;
}

/** The running sub-agents the viewed session's turn waits on (its own, not deeper ones). */
/** Settles when the session's run ends (its status leaves running); the app unsubscribes at once. */
function settledRun(core: UiCore, sessionId: string): Promise<void> {
  return new Promise((resolve) => {
    const off = core.on((e) => {
      if (e.type !== 'session.status' || e.session_id !== sessionId || e.status === 'running' || e.status === 'queued') return;
      off();
      resolve();
    });
  });
}

/** How soon after an Esc in a dialog a second one interrupts the whole turn. */
const DIALOG_SECOND_ESCAPE_MS = EXIT_WINDOW_MS;

/** Whether any of these sessions is still running or waiting to run. */
function isUnderWay(state: UiState, ids: readonly string[]): boolean {
  return ids.some((id) => {
    const status = state.sessions[id]?.status;
    return status === 'running' || status === 'queued';
  });
}

function runningChildIds(state: UiState, sessionId: string): string[] {
  return Object.values(state.sessions)
    .filter((s) => s.parentId === sessionId && (s.status === 'running' || s.status === 'queued'))
    .map((s) => s.id);
}

function describeKey(config: KeybindConfig | undefined, action: KeymapAction): string {
  const described = createKeymap(config ?? {}).describe().find((d) => d.action === action);
  return described?.keys[0] ?? action;
}

/** The status line's `ctx N%`: the last request's tokens over the model's window. */
function contextFill(tokens: number | undefined, model: string | undefined, core: UiCore): { contextFill?: number } {
  if (tokens === undefined || !model) return {};
  return { contextFill: tokens / core.modelLimit(model).context };
}
