// Claude Code's hooks (DESIGN §20): the configuration format, where hooks are loaded from, how
// one event is fired, and what a session does with the answers. See each module's contract.
export { DEFAULT_HOOK_TIMEOUT_SECONDS, HOOK_EVENTS, isEmptyHookSet, mergeHooks, parseHooks, type HookEventName, type HookSet } from './config.js';
export { MAX_HOOK_OUTPUT_BYTES } from './process.js';
export { HookRunner, withAgentHooks, type HookVerdict } from './runner.js';
export { SessionHooks, type HookSessionIdentity, type PreToolVerdict, type PostToolVerdict, type PromptVerdict, type StopVerdict, type TeamTaskHookInput } from './session.js';
export { loadHookSources, type HookSources, type HookSourcesOptions } from './sources.js';
export { claudeToolInput, claudeToolName, matcherNames } from './tool-names.js';
