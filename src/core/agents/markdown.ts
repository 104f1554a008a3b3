// Reads one agent markdown file: YAML front-matter for the fields, the body for the prompt.
import { describeIssue } from '../config/issues.js';
import { readFrontMatter } from '../frontmatter.js';
import { applyFields, skeleton } from './build.js';
import type { AgentDefinition } from './definition.js';
import { agentFieldsSchema, FIELDS_READ_ELSEWHERE, type AgentMode } from './schema.js';

export type ParsedAgentFile =
  | { ok: true; agent: AgentDefinition; warnings: string[]; unknownTools: string[] }
  | { ok: false; reason: string };

export interface ParseAgentOptions {
  /** Absolute path, recorded as the agent's source. */
  file: string;
  /** The name when the front-matter has none: the file name without `.md`. */
  fallbackName: string;
  defaultMode: AgentMode;
  /** Names of tools a program added (the library's in-process tools), which `tools` may name. */
  extraTools?: readonly string[];
}

export function parseAgentMarkdown(text: string, opts: ParseAgentOptions): ParsedAgentFile {
  const read = readFrontMatter(text);
  if (!read.ok) return { ok: false, reason: read.reason };
  const fields = read.data;
  const content = read.body;
  // jitless: a handful of files per start; see config/load.ts.
  const schema = agentFieldsSchema();
  const result = schema.safeParse(fields, { jitless: true });
  if (!result.success) {
    const issue = result.error.issues[0];
    return { ok: false, reason: issue ? describeIssue(schema, fields, issue) : 'invalid front-matter' };
  }
  const name = result.data.name ?? opts.fallbackName;
  const { agent, warnings, unknownTools } = applyFields(skeleton(name, opts.defaultMode, opts.file), { ...result.data, prompt: content.trim() }, opts.extraTools);
  const misplaced = Object.keys(fields).length === 0 && MISPLACED_FRONT_MATTER.test(content) ? [MISPLACED_WARNING] : [];
  return { ok: true, agent, warnings: [...misplaced, ...warnings, ...unknownFieldWarnings(fields)], unknownTools };
}

/**
 * A `---` block written indented or after blank lines: neither Claude Code nor YAML front-matter
 * readers take it as fields, so the file loads with no description and its fields in the prompt.
 */
const MISPLACED_FRONT_MATTER = /^(?:[ \t]*\r?\n)*[ \t]*---[ \t]*\r?\n[\s\S]*?\n[ \t]*---[ \t]*(?:\r?\n|$)/;
const MISPLACED_WARNING =
  'its "---" front-matter block does not start the file at the first line, unindented, so none of its fields (name, description, tools, …) is read and the whole file is the prompt.';

let knownFields: ReadonlySet<string> | undefined;

/** Keys no part of the program reads. */
export function unknownFields(fields: Record<string, unknown>): string[] {
  knownFields ??= new Set([...Object.keys(agentFieldsSchema().shape), ...FIELDS_READ_ELSEWHERE]);
  const known = knownFields;
  return Object.keys(fields).filter((key) => !known.has(key));
}

/** One warning per front-matter key no part of the program reads, so nothing a file says is dropped in silence. */
function unknownFieldWarnings(fields: Record<string, unknown>): string[] {
  return unknownFields(fields).map((key) => `ignoring unknown field "${key}" (not a field of Claude Code's or OpenCode's agent files).`);
}
