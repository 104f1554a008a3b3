// The system prompt every session gets: an identity (the agent's own prompt, or a task's
// ad-hoc `system_prompt` in its place), then a shared environment section, then the
// user's own instructions file (`~/.config/opencode/AGENTS.md`, else `~/.claude/CLAUDE.md`),
// then the project's. A sub-agent never inherits its parent's identity.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { PeerUserDirs } from '../config/paths.js';
import { describeProblem, readRegularFileSync, readSmallFileSync } from '../tools/regular-file.js';

export interface EnvironmentInfo {
  cwd: string;
  projectRoot: string;
  isGitRepo: boolean;
  platform: string;
  date: Date;
  /** Where the user's Claude Code and OpenCode instructions live; absent: none are read. */
  userDirs?: PeerUserDirs | undefined;
}

const INSTRUCTION_FILES = ['AGENTS.md', 'CLAUDE.md'];

/** The first instructions file found at the project root (AGENTS.md preferred). */
export function readProjectInstructions(projectRoot: string): { file: string; text: string } | undefined {
  return readFirst(INSTRUCTION_FILES.map((name) => join(projectRoot, name)));
}

/** The user's own instructions, as OpenCode reads them: its AGENTS.md, else Claude Code's CLAUDE.md. */
export function readUserInstructions(dirs: PeerUserDirs): { file: string; text: string } | undefined {
  return readFirst([join(dirs.opencode, 'AGENTS.md'), join(dirs.claude, 'CLAUDE.md')]);
}

/**
 * One line for each instructions file that exists but is left out of the prompt (over 1 MB,
 * unreadable, not a regular file), for the user at start; the prompt builder skips them silently.
 */
export function instructionFileWarnings(projectRoot: string, dirs?: PeerUserDirs): string[] {
  const groups = [
    INSTRUCTION_FILES.map((name) => join(projectRoot, name)),
    ...(dirs ? [[join(dirs.opencode, 'AGENTS.md'), join(dirs.claude, 'CLAUDE.md')]] : []),
  ];
  const warnings: string[] = [];
  for (const files of groups) {
    // Only the file that would be read: the first one present.
    const file = files.find((f) => existsSync(f));
    if (file === undefined) continue;
    const read = readSmallFileSync(file);
    if (!('text' in read) && read.problem !== 'missing') warnings.push(`${file}: it ${describeProblem(read)}; left out of the prompt.`);
  }
  return warnings;
}

function readFirst(files: readonly string[]): { file: string; text: string } | undefined {
  for (const file of files) {
    if (!existsSync(file)) continue;
    // A repository's AGENTS.md may be a FIFO or a device: only a regular file is read, or
    // the open would block the main thread (signals included) until a writer appears.
    const text = readRegularFileSync(file);
    return text === undefined ? undefined : { file, text };
  }
  return undefined;
}

export function environmentSection(env: EnvironmentInfo): string {
  return [
    '<env>',
    `Working directory: ${env.cwd}`,
    `Project root: ${env.projectRoot}`,
    `Is a git repository: ${env.isGitRepo ? 'yes' : 'no'}`,
    `Platform: ${env.platform}`,
    // Day precision keeps the prompt stable for the prompt cache across a day.
    `Today's date: ${env.date.toISOString().slice(0, 10)}`,
    '</env>',
  ].join('\n');
}

export function buildSystemPrompt(identity: string, env: EnvironmentInfo): string {
  // An agent file with an empty body has no identity to state: start with the environment.
  const parts = [identity.trim(), environmentSection(env)].filter(Boolean);
  const sources = [env.userDirs ? readUserInstructions(env.userDirs) : undefined, readProjectInstructions(env.projectRoot)];
  for (const instructions of sources) {
    if (instructions && instructions.text.trim()) parts.push(`Instructions from ${instructions.file}:\n${instructions.text.trim()}`);
  }
  return parts.join('\n\n');
}
