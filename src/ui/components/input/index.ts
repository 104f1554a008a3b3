// The prompt input and the pieces an app may reuse (completion types, the pure reducer).

export { PromptInput, type PromptInputProps } from './PromptInput.js';
export type { NamedItem, CompletionSources, MenuItem } from './completion.js';
export { reducePrompt, initialPromptState, type PromptState, type PromptEffect } from './prompt-state.js';
