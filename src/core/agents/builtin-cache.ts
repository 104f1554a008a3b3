// The built-in agents as the build parsed them (scripts/build.mjs puts them in the bundle as
// `__OC_BUILTIN_AGENTS__`), so a start does not read their YAML and run the agent schema on
// every launch. An entry is used only when the file's text is exactly the text it was parsed
// from, so an edited or replaced package file is parsed as usual: the cache can never be stale.
// Running from source (tests, tsx) there is no cache and every file is parsed.
import type { AgentDefinition } from './definition.js';
import type { AgentMode } from './schema.js';

/** One built-in file as parsed at build time: no warnings, no unknown tools (others are not cached). */
export interface BuiltinAgentEntry {
  /** The file's name in the package's `agents/` folder. */
  file: string;
  /** Its whole text, compared before the entry is used. */
  text: string;
  defaultMode: AgentMode;
  /** The parsed agent without its `source`, which is the installed file's path. */
  agent: Omit<AgentDefinition, 'source'>;
}

declare const __OC_BUILTIN_AGENTS__: readonly BuiltinAgentEntry[] | undefined;

const entries: readonly BuiltinAgentEntry[] = typeof __OC_BUILTIN_AGENTS__ === 'undefined' ? [] : __OC_BUILTIN_AGENTS__;

/** The agent parsed from `text` at build time, or undefined when the build did not parse this very text. */
export function cachedBuiltinAgent(fileName: string, text: string, defaultMode: AgentMode, source: string): AgentDefinition | undefined {
  const entry = entries.find((e) => e.file === fileName && e.defaultMode === defaultMode && e.text === text);
  // A fresh copy: callers may change the definition they get.
  return entry ? { ...structuredClone(entry.agent), source } : undefined;
}
