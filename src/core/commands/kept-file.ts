// A file a command must not lose the user's text of (`/init` and AGENTS.md, DESIGN §10),
// enforced in code rather than trusted to the prompt.
// Contract: `rememberKeptFile` reads the file's bytes before the turn; `settleKeptFile` runs
// after it. A turn that did not complete gets the original bytes back exactly. A completed
// turn keeps the agent's result unless a non-blank line of the user's text went missing; then
// the user's text comes back intact, followed by the agent's new lines under a heading, and
// the returned sentence tells the user what happened. With no file before, nothing is kept.
import { readFile, writeFile } from 'node:fs/promises';
import { isAbsolute, join } from 'node:path';
import { errorMessage } from '../errors.js';

export interface KeptFile {
  /** The command that must keep it, without the slash. */
  command: string;
  /** As the user knows it, relative to the project root. */
  name: string;
  path: string;
  /** The bytes before the turn; null when there was no file. */
  original: Buffer | null;
}

/** What was done to keep the user's text, for the user to read in one line. */
export interface KeptFileNotice {
  file: string;
  action: 'restored' | 'merged';
  message: string;
}

/** The heading the agent's lines go under when the user's text had to be put back. */
export function addedHeading(command: string): string {
  return `## Added by /${command}`;
}

export async function rememberKeptFile(root: string, name: string, command: string): Promise<KeptFile> {
  const path = isAbsolute(name) ? name : join(root, name);
  try {
    return { command, name, path, original: await readIfPresent(path) };
  } catch (err) {
    throw new Error(`/${command}: could not read ${name} before running: ${errorMessage(err)}`, { cause: err });
  }
}

/**
 * Puts the user's text back where the turn lost it. `completed` is false for a turn that
 * failed, was cancelled or ran out of steps: then the file is exactly as before.
 */
export async function settleKeptFile(kept: KeptFile, completed: boolean): Promise<KeptFileNotice | undefined> {
  if (kept.original === null) return undefined;
  const now = await readIfPresent(kept.path);
  if (now !== null && now.equals(kept.original)) return undefined;
  if (!completed) {
    await writeFile(kept.path, kept.original);
    return { file: kept.name, action: 'restored', message: `/${kept.command} did not finish, so ${kept.name} was put back as it was.` };
  }
  const heading = addedHeading(kept.command);
  const merged = keepUserLines(kept.original.toString('utf8'), now === null ? '' : now.toString('utf8'), heading);
  if (merged === undefined) return undefined;
  await writeFile(kept.path, merged.text);
  const message = merged.added
    ? `/${kept.command} dropped lines of your ${kept.name}, so your text was put back intact and its new lines follow under "${heading}".`
    : `/${kept.command} dropped lines of your ${kept.name}, so your text was put back as it was.`;
  return { file: kept.name, action: merged.added ? 'merged' : 'restored', message };
}

/**
 * The user's text with the agent's additions after it, or undefined when every non-blank line
 * of the user's text is still in the updated one (the agent's edit stands).
 */
export function keepUserLines(original: string, updated: string, heading: string): { text: string; added: boolean } | undefined {
  const updatedLines = new Set(updated.split(/\r?\n/).map((line) => line.trimEnd()));
  const userLines = original.split(/\r?\n/).map((line) => line.trimEnd());
  if (userLines.every((line) => line.trim() === '' || updatedLines.has(line))) return undefined;
  const known = new Set(userLines.filter((line) => line.trim() !== ''));
  const added = collapseBlankLines(updated.split(/\r?\n/).filter((line) => !known.has(line.trimEnd())));
  if (!added.length) return { text: original, added: false };
  const base = original.endsWith('\n') ? original : `${original}\n`;
  return { text: `${base}\n${heading}\n\n${added.join('\n')}\n`, added: true };
}

function collapseBlankLines(lines: string[]): string[] {
  const out: string[] = [];
  for (const line of lines) {
    const blank = line.trim() === '';
    if (blank && (out.length === 0 || out[out.length - 1]!.trim() === '')) continue;
    out.push(line.trimEnd());
  }
  while (out.length && out[out.length - 1]!.trim() === '') out.pop();
  return out;
}

async function readIfPresent(path: string): Promise<Buffer | null> {
  try {
    return await readFile(path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
}
