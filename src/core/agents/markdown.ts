// Reads one agent markdown file: YAML front-matter for the fields, the body for the prompt.
import { parse as parseYaml } from 'yaml';
import { describeIssue } from '../config/issues.js';
import { applyFields, skeleton } from './build.js';
import type { AgentDefinition } from './definition.js';
import { AgentFieldsSchema, type AgentMode } from './schema.js';
import { unknownToolsWarning } from './tools.js';

export type ParsedAgentFile =
  | { ok: true; agent: AgentDefinition; warnings: string[] }
  | { ok: false; reason: string };

export interface ParseAgentOptions {
  /** Absolute path, recorded as the agent's source. */
  file: string;
  /** The name when the front-matter has none: the file name without `.md`. */
  fallbackName: string;
  defaultMode: AgentMode;
}

function isMapping(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Claude Code accepts `description: Use when: the user asks ...` although strict YAML
 * rejects a second ": " in a plain scalar. Such lines are quoted and the block retried,
 * so those files load unchanged; anything else stays an error.
 */
function quoteLooseScalars(block: string): string {
  return block.replace(/^([A-Za-z_][\w-]*):[ \t]+(.+?)[ \t]*$/gm, (line, key: string, value: string) => {
    if (/^["'[{|>&*!%@`]/.test(value) || !/: | #/.test(value)) return line;
    return `${key}: ${JSON.stringify(value)}`;
  });
}

function parseFrontMatter(block: string): object {
  let value: unknown;
  try {
    value = parseYaml(block);
  } catch (err) {
    const retried = quoteLooseScalars(block);
    if (retried === block) throw err;
    try {
      value = parseYaml(retried);
    } catch {
      throw err;
    }
  }
  if (value === null || value === undefined) return {};
  if (!isMapping(value)) throw new Error('the front-matter must be a list of "key: value" fields');
  return value;
}

function firstLine(err: unknown): string {
  const text = err instanceof Error ? err.message : String(err);
  return (text.split('\n')[0] ?? text).replace(/[:.]\s*$/, '');
}

/** `---` on the first line opens the front-matter; the next `---` line closes it. */
function splitFrontMatter(text: string): { frontMatter?: string; content: string } {
  const match = /^---[ \t]*\r?\n([\s\S]*?)\r?\n?^---[ \t]*(?:\r?\n|$)/m.exec(text);
  if (!match || match.index !== 0) return { content: text };
  return { frontMatter: match[1] ?? '', content: text.slice(match[0].length) };
}

export function parseAgentMarkdown(text: string, opts: ParseAgentOptions): ParsedAgentFile {
  const body = text.replace(/^\uFEFF/, '');
  if (/^---[ \t]*\r?\n/.test(body) && !/\r?\n---[ \t]*(\r?\n|$)/.test(body.replace(/^---[ \t]*\r?\n/, '\n'))) {
    return { ok: false, reason: 'the front-matter has no closing "---" line' };
  }
  let data: Record<string, unknown>;
  let content: string;
  try {
    const split = splitFrontMatter(body);
    const parsed = split.frontMatter === undefined ? {} : parseFrontMatter(split.frontMatter);
    data = isMapping(parsed) ? parsed : {};
    content = split.content;
  } catch (err) {
    return { ok: false, reason: `invalid YAML front-matter: ${firstLine(err)}` };
  }
  // `tools:` with nothing after it means "not set", not "null".
  const fields = Object.fromEntries(Object.entries(data).filter(([, v]) => v !== null));
  const result = AgentFieldsSchema.safeParse(fields);
  if (!result.success) {
    const issue = result.error.issues[0];
    return { ok: false, reason: issue ? describeIssue(AgentFieldsSchema, fields, issue) : 'invalid front-matter' };
  }
  const name = result.data.name ?? opts.fallbackName;
  const { agent, unknownTools } = applyFields(skeleton(name, opts.defaultMode, opts.file), { ...result.data, prompt: content.trim() });
  const warnings = unknownTools.length > 0 ? [unknownToolsWarning(unknownTools)] : [];
  return { ok: true, agent, warnings };
}
