// `opencode-ink trust [--revoke] [dir]` and `run --trust` (DESIGN §15). Trust is recorded
// for the project root around `dir` (its git root, or the folder itself), real path, with
// the content of its control files pinned; trusting a trusted project again re-pins them.
import { statSync } from 'node:fs';
import { resolve } from 'node:path';
import { ConfigError } from '../../core/errors.js';
import { describeChange, readTrustList, resolveTrust, setTrusted, trustProject, trustRoot } from '../../core/trust/index.js';

export interface TrustCommandOptions {
  revoke: boolean;
}

/** Records or removes trust; returns the line to print. */
export function trustCommand(dir: string | undefined, opts: TrustCommandOptions, cwd: string, env: NodeJS.ProcessEnv): string {
  const target = resolve(cwd, dir ?? '.');
  let isFolder = false;
  try {
    isFolder = statSync(target).isDirectory();
  } catch {
    isFolder = false;
  }
  if (!isFolder) throw new ConfigError(`trust: "${dir ?? target}" is not a folder.`);
  const root = trustRoot(target);
  if (opts.revoke) {
    const changed = setTrusted(env, root, false);
    return changed ? `No longer trusted: ${root} (its project files can again only narrow what is allowed).` : `${root} was not trusted.`;
  }
  const wasTrusted = readTrustList(env).roots.has(root);
  // What differed from the pins, named before they are replaced.
  const before = wasTrusted ? resolveTrust(target, env).changed : [];
  const changed = trustProject(env, target);
  const unverifiable = resolveTrust(target, env).changed.filter((c) => c.change === 'unverifiable').map(describeChange);
  const caveat = unverifiable.length > 0 ? ` Note: ${unverifiable.join(', ')}; it counts as changed at every start until trimmed (or use run --trust).` : '';
  if (!wasTrusted) return `Trusted ${root}: its .opencoderc.json, .opencode/ and .claude/ files now apply in full.${caveat}`;
  if (before.length > 0) return `Trusted ${root} again: pinned its control files as they are now (changed: ${before.map(describeChange).join(', ')}).${caveat}`;
  return changed ? `${root} is already trusted; pinned its control files as they are now.${caveat}` : `${root} is already trusted.${caveat}`;
}
