// Project trust (DESIGN §15): which projects the user trusts, whether their control files are
// still what was trusted, and how the files of the others are cut down so they can narrow
// what is allowed but never widen it. A trusted project whose control files were added,
// changed or removed since it was trusted (by anyone: the user, a teammate's pull, a
// sandboxed command) is treated as untrusted until the user trusts it again, and the
// changed files are named (as direnv does for `.envrc`). Hashing happens here, once per load.
import { resolve } from 'node:path';
import { findProject } from '../project.js';
import { compareControlFiles, controlFingerprint, describeChange, type ControlFileChange } from './control-files.js';
import { ProjectNarrowing } from './narrow.js';
import { pinIfUnpinned, readTrustList, setTrusted, trustRoot } from './store.js';

export { ProjectNarrowing, WIDENING_CONFIG_KEYS, restrictionRuleset, restrictionRulesets, withoutAllow } from './narrow.js';
export { TRUST_FILE, pinIfUnpinned, readTrustList, setTrusted, trustFilePath, trustRoot, type TrustChange, type TrustList } from './store.js';
export {
  FOLDER_CONTROL_PATHS,
  ROOT_CONTROL_PATHS,
  compareControlFiles,
  controlFingerprint,
  describeChange,
  type ControlFileChange,
  type ControlPins,
} from './control-files.js';

export interface ProjectTrust {
  /** The project root trust is recorded for (real path). */
  root: string;
  /** The same folder as found from `cwd`, symlinks unresolved (how loaders spell paths). */
  folder: string;
  trusted: boolean;
  /** For a project the user trusted: its control files that differ from what was pinned (it is then not trusted). */
  changed: readonly ControlFileChange[];
  /** Set when trust.json cannot be used (or the first pins of a version 1 entry cannot be written). */
  warning?: string;
}

/**
 * Whether the project around `cwd` is trusted: `once` (run --trust) trusts it for this
 * process without recording or reading anything.
 */
export function resolveTrust(cwd: string, env: NodeJS.ProcessEnv, once = false): ProjectTrust {
  const root = trustRoot(cwd);
  const folder = findProject(resolve(cwd)).root;
  if (once) return { root, folder, trusted: true, changed: [] };
  const list = readTrustList(env);
  const base = { root, folder, ...(list.warning ? { warning: list.warning } : {}) };
  if (!list.roots.has(root)) return { ...base, trusted: false, changed: [] };
  const current = controlFingerprint(root, resolve(cwd));
  const pinned = list.pins.get(root);
  if (pinned === undefined) {
    // Trusted before pins existed (a version 1 trust.json): pin what is there now (see store.ts).
    try {
      pinIfUnpinned(env, root, current);
    } catch (err) {
      return { ...base, trusted: true, changed: [], warning: `Warning: ${(err as Error).message} The project's control files could not be pinned; trust still applies.` };
    }
    return { ...base, trusted: true, changed: [] };
  }
  const changed = compareControlFiles(pinned, current);
  return { ...base, trusted: changed.length === 0, changed };
}

/** Trusts the project around `cwd` (or trusts it again), pinning its control files as they are now. Returns false when nothing changed. */
export function trustProject(env: NodeJS.ProcessEnv, cwd: string): boolean {
  const root = trustRoot(cwd);
  return setTrusted(env, root, true, { pins: controlFingerprint(root, resolve(cwd)) });
}

/** The narrowing to hand the loaders: none for a trusted project. */
export function narrowingFor(trust: ProjectTrust): ProjectNarrowing | undefined {
  return trust.trusted ? undefined : new ProjectNarrowing(trust.root, trust.folder, trust.changed.map(describeChange));
}
