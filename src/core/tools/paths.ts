// Every file tool resolves paths the same way: relative to the session's working directory,
// and anything outside it needs an `external_directory` permission before it is touched,
// read-only or not, so a prompt-injected path cannot quietly read ~/.ssh.
import { readlink, realpath } from 'node:fs/promises';
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

/** Lexical containment: says nothing about symlinks (see realTarget for that). */
export function isInside(root: string, target: string): boolean {
  const rel = path.relative(path.resolve(root), path.resolve(target));
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}

/** Link hops to follow by hand before giving up, like the kernel's own loop limit. */
const MAX_LINK_HOPS = 40;

/**
 * Where a path really points once every symlink on it is followed. A path that does not
 * exist yet (a file about to be written) is its nearest existing ancestor's real path plus
 * the rest, and a dangling link is followed by hand, because writing through it would
 * create its target.
 */
export async function realTarget(absolute: string, hops = 0): Promise<string> {
  try {
    return await realpath(absolute);
  } catch {
    // Missing, or a dangling or looping link: handled below.
  }
  if (hops >= MAX_LINK_HOPS) return absolute;
  const link = await readlink(absolute).catch(() => undefined);
  if (link !== undefined) return realTarget(path.resolve(path.dirname(absolute), link), hops + 1);
  const parent = path.dirname(absolute);
  if (parent === absolute) return absolute;
  return path.join(await realTarget(parent, hops), path.basename(absolute));
}

/**
 * Asks once for a path outside the working directory; returns normally when allowed.
 * "Inside" compares real paths, so a symlink in the project that points elsewhere (say
 * `etc -> /etc`) is treated as the outside path it is; the request names that real path,
 * which is what the user's rules and "always" grants should match.
 */
export async function ensureAccess(ctx: ToolContext, absolute: string): Promise<void> {
  const [realCwd, real] = await Promise.all([realTarget(path.resolve(ctx.cwd)), realTarget(absolute)]);
  if (isInside(realCwd, real)) return;
  const via = real === absolute ? '' : ` (via ${displayPath(ctx.cwd, absolute)})`;
  await ctx.ask({
    permission: 'external_directory',
    patterns: [real],
    subject: `Access outside the working directory: ${real}${via}`,
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
