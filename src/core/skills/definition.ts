// What a skill is once loaded (the Agent Skills format, DESIGN §20): a folder holding a
// `SKILL.md` whose front-matter names and describes it and whose body is the instructions
// the model loads on demand, with any files beside it read from the folder when needed.

export interface SkillDefinition {
  /** `name:` of the front-matter, else the folder's name. */
  name: string;
  /** When to use it: the only part the model sees before loading it. */
  description: string;
  /** The instructions: SKILL.md without its front-matter. */
  body: string;
  /** Absolute path of the skill's folder; paths in the body are relative to it. */
  dir: string;
  /** Absolute path of its SKILL.md. */
  file: string;
  /** Who wrote the folder it was found in. */
  origin: 'user' | 'project';
  /** `license:` as written, shown by `/skills`. */
  license?: string;
  /** `allowed-tools:` as written; listed, not applied (tools are governed by the agent and the permission rules). */
  allowedTools?: string[];
}

/** The skills of one start and what went wrong loading them. */
export interface SkillCatalogue {
  /** By name; project skills replace user skills of the same name. */
  skills: ReadonlyMap<string, SkillDefinition>;
  /** One per skipped skill or unreadable folder: `source` is the file or folder. */
  warnings: ReadonlyArray<{ source: string; message: string }>;
}

export const EMPTY_SKILLS: SkillCatalogue = { skills: new Map(), warnings: [] };
