// What the app asks the core about sub-agents' file changes (DESIGN §18), outside React.
// Contract:
// - `loadDiffStats` asks the core once per finished sub-agent loaded from the store (`-c`,
//   `-r`, a session picked) that has no stat yet — one followed live got it from its
//   `session.diff_stat` event — and resolves to true when any of them changed a file (the
//   caller repaints, since their blocks were already printed).
// - `loadChanges` fetches the per-file diff of finished sub-agents whose blocks are expanded,
//   once each, and resolves to true when it added any.
// - `revertCheck` says whether the session can be reverted now, or why not, in one sentence.
//   Asked in a session that is not a sub-agent (the root's view), it picks the newest finished
//   sub-agent of that session that changed files and is not reverted yet — the block just
//   above the prompt; the y/n question names it. Any other one is reverted from its view or
//   by selecting its block (the app then passes that sub-agent's id).
// A failing core call is never thrown at the screen: it is left out (stats, diffs) — the
// revert itself reports its error as a notice.
import { errorMessage } from '../../core/errors.js';
import type { UiCore } from '../core-api.js';
import { isFinalStatus } from '../state/reducer.js';
import { agentPath, childrenOf } from '../state/selectors.js';
import type { UiStore } from '../state/store.js';
import type { DiffStat, SessionNode, UiState } from '../state/types.js';

/** Sessions already asked about, by store: a stat or a diff is asked for once. */
const askedStats = new WeakMap<UiStore, Set<string>>();
const askedChanges = new WeakMap<UiStore, Set<string>>();

function askedIn(map: WeakMap<UiStore, Set<string>>, store: UiStore): Set<string> {
  let set = map.get(store);
  if (!set) {
    set = new Set();
    map.set(store, set);
  }
  return set;
}

function finishedChild(node: SessionNode): boolean {
  return node.parentId !== null && isFinalStatus(node.status);
}

export async function loadDiffStats(core: UiCore, store: UiStore): Promise<boolean> {
  const ask = core.sessionDiffStat?.bind(core);
  if (!ask) return false;
  const asked = askedIn(askedStats, store);
  const wanted = Object.values(store.getState().sessions).filter((s) => finishedChild(s) && !s.diffStat && !asked.has(s.id));
  const found = await Promise.all(
    wanted.map(async (s) => {
      asked.add(s.id);
      const stat = await ask(s.id).catch(() => undefined);
      if (stat) store.dispatch({ type: 'ui.diff_stat', session_id: s.id, stat });
      return stat !== undefined && stat.files > 0;
    }),
  );
  return found.some(Boolean);
}

/** Finished children of `viewId` whose expanded blocks would show a diff not fetched yet. */
export function childrenNeedingChanges(state: UiState, viewId: string): string[] {
  return childrenOf(state, viewId)
    .filter((s) => finishedChild(s) && (s.diffStat?.files ?? 0) > 0 && !s.changes)
    .map((s) => s.id);
}

export async function loadChanges(core: UiCore, store: UiStore, ids: readonly string[]): Promise<boolean> {
  const ask = core.sessionChanges?.bind(core);
  if (!ask) return false;
  const asked = askedIn(askedChanges, store);
  const found = await Promise.all(
    ids
      .filter((id) => !asked.has(id))
      .map(async (id) => {
        asked.add(id);
        const files = await ask(id).catch(() => undefined);
        if (files) store.dispatch({ type: 'ui.session_changes', session_id: id, files });
        return files !== undefined;
      }),
  );
  return found.some(Boolean);
}

export type RevertCheck = { ok: true; sessionId: string; label: string; stat: DiffStat | undefined } | { ok: false; notice: string };

/** Whether the sub-agent `viewId` (or, in a root's view, its newest changed one) can be reverted now; its stat, asked of the core when not known yet. */
export async function revertCheck(core: UiCore, state: UiState, viewId: string): Promise<RevertCheck> {
  const viewed = state.sessions[viewId];
  const node = viewed?.parentId ? viewed : childrenOf(state, viewId).filter((s) => isFinalStatus(s.status) && (s.diffStat?.files ?? 0) > 0 && !s.reverted).at(-1);
  if (!node) return { ok: false, notice: "No finished sub-agent here changed files that are not reverted yet; to revert another one, select its block or open its view first." };
  const sessionId = node.id;
  const label = agentPath(state, sessionId);
  if (!isFinalStatus(node.status) || core.isRunning(sessionId)) return { ok: false, notice: `${label} is still running: it can be reverted once it has finished.` };
  if (!core.revertSession) return { ok: false, notice: 'Reverting a sub-agent is not available here.' };
  try {
    const stat = node.diffStat ?? (await core.sessionDiffStat?.(sessionId));
    if (stat?.files === 0) return { ok: false, notice: `${label} changed no file: nothing to revert.` };
    if (node.reverted) return { ok: false, notice: `${label}'s changes were already reverted.` };
    return { ok: true, sessionId, label, stat };
  } catch (err) {
    return { ok: false, notice: errorMessage(err) };
  }
}

/** The y/n question: who, and how many files. */
export function revertQuestion(label: string, stat: DiffStat | undefined): string {
  const files = stat ? `${stat.files} file${stat.files === 1 ? '' : 's'}` : 'the files';
  return `Revert ${label}'s changes to ${files} (its sub-agents' included)?`;
}

/** A file a revert left as it is because another session changed it too while this one ran: the path, and who (labels). */
export interface LeftAloneFile {
  path: string;
  by: string[];
}

/** What a revert did, in one line (two when it left files alone). */
export function revertedNotice(label: string, files: readonly string[], leftAlone: readonly LeftAloneFile[] = []): string {
  const done =
    files.length === 0
      ? `Reverted ${label}: no file needed changing.`
      : `Reverted ${label}: ${files.length === 1 ? '1 file' : `${files.length} files`} restored (${files.slice(0, 5).join(', ')}${files.length > 5 ? ', …' : ''}).`;
  if (leftAlone.length === 0) return done;
  const named = leftAlone.slice(0, 3).map((f) => `${f.path} (also changed by ${f.by.join(', ')})`);
  return `${done}\nLeft as ${leftAlone.length === 1 ? 'it is' : 'they are'}, changed by another session at the same time: ${named.join(', ')}${leftAlone.length > 3 ? ', …' : ''}.`;
}
