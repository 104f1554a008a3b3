// Colours for every role the UI draws, in one place so NO_COLOR (https://no-color.org)
// can switch them all off: with it set, every getter returns undefined and Ink prints
// plain text.

export type Role =
  | 'user'
  | 'assistant'
  | 'tool'
  | 'toolName'
  | 'error'
  | 'warning'
  | 'success'
  | 'muted'
  | 'accent'
  | 'heading'
  | 'code'
  | 'link'
  | 'quote'
  | 'diffAdd'
  | 'diffRemove'
  | 'diffHunk'
  | 'running'
  | 'queued';

const ROLE_COLORS: Record<Role, string> = {
  user: 'cyan',
  assistant: 'white',
  tool: 'blue',
  toolName: 'blueBright',
  error: 'red',
  warning: 'yellow',
  success: 'green',
  muted: 'gray',
  accent: 'magenta',
  heading: 'magentaBright',
  code: 'yellow',
  link: 'blueBright',
  quote: 'gray',
  diffAdd: 'green',
  diffRemove: 'red',
  diffHunk: 'cyan',
  running: 'yellow',
  queued: 'gray',
};

/** Names Ink (chalk) understands; an agent's `color` may be one of these or a #hex. */
const AGENT_PALETTE = ['cyan', 'magenta', 'green', 'yellow', 'blue', 'redBright', 'cyanBright', 'magentaBright', 'greenBright'];

/** Built-ins get fixed colours so the two agents people see most never swap. */
const KNOWN_AGENTS: Record<string, string> = {
  build: 'cyan',
  plan: 'yellow',
  general: 'magenta',
  explore: 'green',
};

/**
 * Read on every call rather than once at import: tests and `--no-color` style flags can
 * set the variable after this module loads.
 */
export function useColor(env: NodeJS.ProcessEnv = process.env): boolean {
  const value = env['NO_COLOR'];
  return value === undefined || value === '';
}

/** The colour for a role, or undefined when colour is off (Ink then prints plain text). */
export function roleColor(role: Role): string | undefined {
  return useColor() ? ROLE_COLORS[role] : undefined;
}

/** Stable across runs: the same agent name always hashes to the same palette slot. */
export function agentColor(name: string, configured?: string): string | undefined {
  if (!useColor()) return undefined;
  if (configured) return configured;
  const known = KNOWN_AGENTS[name];
  if (known) return known;
  let hash = 0;
  for (let i = 0; i < name.length; i++) hash = (hash * 31 + name.charCodeAt(i)) >>> 0;
  return AGENT_PALETTE[hash % AGENT_PALETTE.length];
}

/** Colours for highlight.js scopes (the part after `hljs-`); unknown scopes stay plain. */
const SYNTAX_COLORS: Record<string, string> = {
  keyword: 'magenta',
  built_in: 'cyan',
  type: 'cyan',
  literal: 'blue',
  number: 'yellow',
  string: 'green',
  regexp: 'red',
  symbol: 'yellow',
  comment: 'gray',
  doctag: 'gray',
  meta: 'gray',
  title: 'blueBright',
  'title.function': 'blueBright',
  'title.class': 'yellowBright',
  params: 'white',
  attr: 'yellow',
  attribute: 'yellow',
  variable: 'redBright',
  property: 'cyanBright',
  tag: 'red',
  name: 'red',
  'selector-tag': 'red',
  'selector-class': 'yellow',
  addition: 'green',
  deletion: 'red',
  section: 'magentaBright',
  bullet: 'yellow',
  subst: 'white',
};

export function syntaxColor(scope: string): string | undefined {
  if (!useColor()) return undefined;
  return SYNTAX_COLORS[scope] ?? SYNTAX_COLORS[scope.split('.')[0] ?? ''];
}

/** Status glyphs double as the colour-free cue when NO_COLOR is set. */
export const GLYPHS = {
  queued: '◌',
  completed: '✓',
  /** Stopped at its cap on model requests: ended, but maybe unfinished. */
  limited: '■',
  failed: '✗',
  cancelled: '⊘',
  interrupted: '⊘',
  idle: '●',
  bullet: '•',
  arrow: '›',
  ellipsis: '…',
} as const;

export const SPINNER_FRAMES = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'] as const;

/** The width the UI lays out to when the terminal reports none (pipes, tests); otherwise it uses the terminal's. */
export const MAX_WIDTH = 80;
