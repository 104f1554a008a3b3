// Finds the skills (DESIGN §20): every folder with a SKILL.md directly inside one of the
// skill folders, read lowest precedence first so a later one replaces an earlier one of the
// same name: `~/.claude/skills` → `<config dir>/skills` → for each project folder from the
// git root down to the working directory, `.opencode/skills` → `.claude/skills`. The
// project's skills thus win over the user's. Listing a project's skills is harmless (they
// are instructions, never run), so they load whether the project is trusted or not.
// A repository can hold anything: a SKILL.md over a megabyte, a FIFO or a device is skipped
// unread, a folder with thousands of entries is read only up to a cap, and every problem is a
// warning naming the file — never a crash or a hang.
import { readdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { projectConfigDirs } from '../config/load.js';
import type { PeerUserDirs } from '../config/paths.js';
import { sentence } from '../errors.js';
import { describeProblem, readSmallFileSync } from '../tools/regular-file.js';
import type { SkillCatalogue, SkillDefinition } from './definition.js';
import { parseSkillMarkdown } from './parse.js';

export const SKILL_FILE = 'SKILL.md';
/** How a warning about a skill that did not load starts; other skill warnings are about fields of one that did. */
export const SKILL_SKIPPED = 'skill skipped:';
/** Entries looked at per skills folder: enough for any real collection, bounded for a hostile one. */
export const MAX_SKILL_FOLDERS = 500;

export interface LoadSkillsOptions {
  /** The user's config dir; its `skills/` subfolder is read. */
  configDir: string;
  /** The user's Claude Code folder (`~/.claude`): its `skills/` is read first. */
  peerDirs?: PeerUserDirs | undefined;
  cwd: string;
}

interface SkillFolder {
  dir: string;
  origin: SkillDefinition['origin'];
}

/** The folders holding skills, lowest precedence first. */
export function skillFolders(opts: LoadSkillsOptions): SkillFolder[] {
  return [
    ...(opts.peerDirs ? [{ dir: join(opts.peerDirs.claude, 'skills'), origin: 'user' } satisfies SkillFolder] : []),
    { dir: join(opts.configDir, 'skills'), origin: 'user' },
    ...projectConfigDirs(opts.cwd).flatMap((d): SkillFolder[] => [
      { dir: join(d, '.opencode', 'skills'), origin: 'project' },
      { dir: join(d, '.claude', 'skills'), origin: 'project' },
    ]),
  ];
}

type Warnings = Array<{ source: string; message: string }>;

/** The sub-folders of `dir`, sorted, at most MAX_SKILL_FOLDERS; a missing folder is none. */
function skillDirs(dir: string, warnings: Warnings): string[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code !== 'ENOENT' && code !== 'ENOTDIR') warnings.push({ source: dir, message: `skills folder skipped: cannot be read (${code ?? String(err)}).` });
    return [];
  }
  names.sort();
  if (names.length > MAX_SKILL_FOLDERS) {
    warnings.push({ source: dir, message: `only the first ${MAX_SKILL_FOLDERS} of its ${names.length} entries were looked at for skills.` });
    names = names.slice(0, MAX_SKILL_FOLDERS);
  }
  return names.map((name) => join(dir, name)).filter((path) => {
    try {
      return statSync(path).isDirectory();
    } catch {
      return false;
    }
  });
}

export function loadSkills(opts: LoadSkillsOptions): SkillCatalogue {
  const skills = new Map<string, SkillDefinition>();
  const warnings: Warnings = [];
  const seen = new Set<string>();
  for (const folder of skillFolders(opts)) {
    const root = resolve(folder.dir);
    if (seen.has(root)) continue;
    seen.add(root);
    for (const dir of skillDirs(root, warnings)) {
      const file = join(dir, SKILL_FILE);
      const read = readSmallFileSync(file);
      if (!('text' in read)) {
        // A folder without SKILL.md is not a skill (scripts, assets): nothing to say.
        if (read.problem !== 'missing') warnings.push({ source: file, message: `${SKILL_SKIPPED} it ${describeProblem(read)}.` });
        continue;
      }
      const parsed = parseSkillMarkdown(read.text, { dir, folderName: dir.slice(root.length + 1), file, origin: folder.origin });
      if (!parsed.ok) {
        warnings.push({ source: file, message: `${SKILL_SKIPPED} ${sentence(parsed.reason)}` });
        continue;
      }
      for (const message of parsed.warnings) warnings.push({ source: file, message: `skill "${parsed.skill.name}": ${message}` });
      skills.set(parsed.skill.name, parsed.skill);
    }
  }
  return { skills, warnings };
}
