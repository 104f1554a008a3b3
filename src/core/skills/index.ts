// Skills (DESIGN §20): loading them, the `skill` tool, and which of them an agent sees.
import { allowlistMatches } from '../agents/tools.js';
import type { ActiveSkill } from '../permission/gate.js';
import type { SkillDefinition } from './definition.js';

export { EMPTY_SKILLS, type SkillCatalogue, type SkillDefinition, type SkillGrant } from './definition.js';
export { loadSkills, skillFolders, MAX_SKILL_FOLDERS, SKILL_FILE, SKILL_SKIPPED, type LoadSkillsOptions } from './load.js';
export { addSkillCommands } from './commands.js';
export { parseSkillMarkdown } from './parse.js';
export { createSkillTool, findSkill, skillCalls, skillListing, SKILL_TOOL, MAX_DESCRIPTION_CHARS, MAX_LISTING_CHARS, type SkillRuns } from './tool.js';
export { allowedToolGrants, splitAllowedTools, MAX_ALLOWED_TOOLS } from './allowed-tools.js';

/** A skill as the permission gate keeps it while active: its name and its `allowed-tools` grants. */
export function activeSkill(skill: SkillDefinition): ActiveSkill {
  return { name: skill.name, grants: skill.grants ?? [] };
}

/**
 * The skills an agent may load: all of them unless its `skills:` lists names (or globs);
 * an empty list means none.
 */
export function skillsForAgent(skills: Iterable<SkillDefinition>, allowed: readonly string[] | undefined): SkillDefinition[] {
  const all = [...skills];
  return allowed === undefined ? all : all.filter((skill) => allowlistMatches(allowed, skill.name));
}
