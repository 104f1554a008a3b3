// Project trust (DESIGN §15): which projects the user trusts, and how the files of the
// others are cut down so they can narrow what is allowed but never widen it.
import { resolve } from 'node:path';
import { findProject } from '../project.js';
import { ProjectNarrowing } from './narrow.js';
import { readTrustList, trustRoot } from './store.js';

export { ProjectNarrowing, WIDENING_CONFIG_KEYS, restrictionRuleset, restrictionRulesets, withoutAllow } from './narrow.js';
export { TRUST_FILE, readTrustList, setTrusted, trustFilePath, trustRoot, type TrustList } from './store.js';

export interface ProjectTrust {
  /** The project root trust is recorded for (real path). */
  root: string;
  /** The same folder as found from `cwd`, symlinks unresolved (how loaders spell paths). */
  folder: string;
  trusted: boolean;
  /** Set when trust.json cannot be used. */
  warning?: string;
}

/**
 * Whether the project around `cwd` is trusted: `once` (run --trust) trusts it for this
 * process without recording anything.
 */
export function resolveTrust(cwd: string, env: NodeJS.ProcessEnv, once = false): ProjectTrust {
  const root = trustRoot(cwd);
  const folder = findProject(resolve(cwd)).root;
  if (once) return { root, folder, trusted: true };
  const list = readTrustList(env);
  return { root, folder, trusted: list.roots.has(root), ...(list.warning ? { warning: list.warning } : {}) };
}

/** The narrowing to hand the loaders: none for a trusted project. */
export function narrowingFor(trust: ProjectTrust): ProjectNarrowing | undefined {
  return trust.trusted ? undefined : new ProjectNarrowing(trust.root, trust.folder);
}
