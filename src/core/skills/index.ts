// Skills (DESIGN §20): loading them, the `skill` tool, and which of them an agent sees.
import { allowlistMatches } from '../agents/tools.js';
import type { SkillDefinition } from './definition.js';

export { EMPTY_SKILLS, type SkillCatalogue, type SkillDefinition } from './definition.js';
export { loadSkills, skillFolders, MAX_SKILL_FOLDERS, SKILL_FILE, SKILL_SKIPPED, type LoadSkillsOptions } from './load.js';
export { addSkillCommands } from './commands.js';
export { parseSkillMarkdown } from './parse.js';
export { createSkillTool, skillListing, SKILL_TOOL, MAX_DESCRIPTION_CHARS, MAX_LISTING_CHARS } from './tool.js';

/**
 * The skills an agent may load: all of them unless its `skills:` lists names (or globs);
 * an empty list means none.
 */
export function skillsForAgent(skills: Iterable<SkillDefinition>, allowed: readonly string[] | undefined): SkillDefinition[] {
  const all = [...skills];
  return allowed === undefined ? all : all.filter((skill) => allowlistMatches(allowed, skill.name));
}
