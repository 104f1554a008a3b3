// Every file tool resolves paths the same way: relative to the session's working directory,
// and anything outside it needs an `external_directory` permission before it is touched,
// read-only or not, so a prompt-injected path cannot quietly read ~/.ssh.
import { homedir } from 'node:os';
import path from 'node:path';
import type { ToolContext } from './types.js';

/** Absolute, normalised path; `~/` is expanded because models often write it. */
export function resolvePath(cwd: string, input: string): string {
  let p = input.trim();
  if (p === '~') p = homedir();
  else if (p.startsWith('~/')) p = path.join(homedir(), p.slice(2));
  return path.resolve(cwd, p);
}

export function isInside(root: string, target: string): boolean {
  const rel = path.relative(path.resolve(root), path.resolve(target));
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}

/** Asks once for a path outside the working directory; returns normally when allowed. */
export async function ensureAccess(ctx: ToolContext, absolute: string): Promise<void> {
  if (isInside(ctx.cwd, absolute)) return;
  await ctx.ask({
    permission: 'external_directory',
    patterns: [absolute],
    subject: `Access outside the working directory: ${absolute}`,
  });
}

/** Resolves a tool's path argument and clears it for use. */
export async function resolveForTool(ctx: ToolContext, input: string | undefined): Promise<string> {
  const absolute = resolvePath(ctx.cwd, input && input.trim() ? input : '.');
  await ensureAccess(ctx, absolute);
  return absolute;
}

/**
 * How paths appear in output and permission patterns: relative to the working directory
 * with forward slashes, or absolute when outside it (a `../..` chain is harder to read).
 */
export function displayPath(cwd: string, absolute: string): string {
  if (!isInside(cwd, absolute)) return absolute;
  const rel = path.relative(cwd, absolute);
  return rel === '' ? '.' : rel.split(path.sep).join('/');
}
