// What a skill is once loaded (the Agent Skills format, DESIGN §20): a folder holding a
// `SKILL.md` whose front-matter names and describes it and whose body is the instructions
// the model loads on demand, with any files beside it read from the folder when needed.

/** One `allowed-tools` entry as a permission key and the patterns it allows (`bash`, [`git add`, `git add *`]). */
export interface SkillGrant {
  permission: string;
  patterns: string[];
}

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
  /** `allowed-tools:` as written, one entry each (`Read`, `Bash(git add:*)`), listed by `/skills`. */
  allowedTools?: string[];
  /**
   * What `allowed-tools` lets run unasked while the skill is active (./allowed-tools.ts): in
   * the session that loaded it, or the sub-agent a `context: fork` skill runs in. Absent for
   * an untrusted project's skill (DESIGN §15) and when no entry names a tool we have.
   */
  grants?: SkillGrant[];
  /** `model:` — the model its slash command runs with. */
  model?: string;
  /** `context: fork` (with `agent:`): its slash command runs as a sub-agent of that type, on its own. */
  fork?: { agent: string };
  /** `user-invocable: false`: not a slash command. Absent: the user can start it as `/<name>`. */
  userInvocable?: false;
  /** `disable-model-invocation: true`: the model never sees it in the `skill` tool. Absent: it can load it. */
  modelInvocable?: false;
}

/** The skills of one start and what went wrong loading them. */
export interface SkillCatalogue {
  /** By name; project skills replace user skills of the same name. */
  skills: ReadonlyMap<string, SkillDefinition>;
  /** One per skipped skill or unreadable folder: `source` is the file or folder. */
  warnings: ReadonlyArray<{ source: string; message: string }>;
}

export const EMPTY_SKILLS: SkillCatalogue = { skills: new Map(), warnings: [] };
