// Markdown files with YAML front-matter (agents and commands): the fields and the body.

/**
 * yaml (about 70 modules) is evaluated at the first front-matter read, not at start-up: most
 * starts find no agent, command or skill file of their own. Required rather than imported,
 * because a bundle evaluates every imported module before its importer, whether used or not.
 */
let yaml: typeof import('yaml') | undefined;
function parseYaml(text: string, options: { logLevel: 'error' }): unknown {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded at first use (see above)
  yaml ??= require('yaml') as typeof import('yaml');
  return yaml.parse(text, options);
}

export type FrontMatterResult =
  | { ok: true; data: Record<string, unknown>; body: string }
  | { ok: false; reason: string };

function isMapping(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * A plain value YAML cannot read but a reader of prose can: it starts with a character YAML
 * reserves (`@`, a backtick, `%`) or with `*` that is not an alias (`**Bold**: text`, which
 * agent collections write as their descriptions).
 */
function startsReserved(value: string): boolean {
  return /^[@`%]/.test(value) || (value.startsWith('*') && !/^\*[^\s,[\]{}]+$/.test(value));
}

/**
 * Claude Code accepts `description: Use when: the user asks ...` although strict YAML
 * rejects a second ": " in a plain scalar. Such lines, and values that start with a
 * reserved character, are quoted and the block retried, so those files load unchanged;
 * anything else stays an error.
 */
function quoteLooseScalars(block: string): string {
  return block.replace(/^([A-Za-z_][\w-]*):[ \t]+(.+?)[ \t]*$/gm, (line, key: string, value: string) => {
    if (!startsReserved(value) && (/^["'[{|>&*!%@`]/.test(value) || !/: | #/.test(value))) return line;
    return `${key}: ${JSON.stringify(value)}`;
  });
}

// 'error': what YAML only warns about is not printed on the program's stderr.
const YAML_OPTIONS = { logLevel: 'error' } as const;

function parseBlock(block: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = parseYaml(block, YAML_OPTIONS);
  } catch (err) {
    const retried = quoteLooseScalars(block);
    if (retried === block) throw err;
    try {
      value = parseYaml(retried, YAML_OPTIONS);
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
function split(text: string): { frontMatter?: string; body: string } {
  const match = /^---[ \t]*\r?\n([\s\S]*?)\r?\n?^---[ \t]*(?:\r?\n|$)/m.exec(text);
  if (!match || match.index !== 0) return { body: text };
  return { frontMatter: match[1] ?? '', body: text.slice(match[0].length) };
}

/**
 * The fields (keys with an empty value left out: `tools:` alone means "not set") and the
 * body. A file without front-matter is all body.
 */
export function readFrontMatter(text: string): FrontMatterResult {
  const source = text.replace(/^\uFEFF/, '');
  if (/^---[ \t]*\r?\n/.test(source) && !/\r?\n---[ \t]*(\r?\n|$)/.test(source.replace(/^---[ \t]*\r?\n/, '\n'))) {
    return { ok: false, reason: 'the front-matter has no closing "---" line' };
  }
  try {
    const parts = split(source);
    const data = parts.frontMatter === undefined ? {} : parseBlock(parts.frontMatter);
    const fields = Object.fromEntries(Object.entries(data).filter(([, v]) => v !== null));
    return { ok: true, data: fields, body: parts.body };
  } catch (err) {
    return { ok: false, reason: `invalid YAML front-matter: ${firstLine(err)}` };
  }
}
