// Slash commands and @mentions (DESIGN §10): where custom commands come from, how their
// templates are filled, and how a typed prompt is recognised.
export { BUILTIN_COMMANDS, CommandFrontMatterSchema, isSubtask, type CommandDefinition } from './definition.js';
export { commandFolders, loadCommands, parseCommandMarkdown, type CommandWarning, type LoadCommandsOptions, type LoadedCommands } from './load.js';
export { renderTemplate, splitArguments } from './template.js';
export { attachFiles, attachMentions, expandShell, fileReferences, shellInlines, type InlineFile, type InlineIo } from './inline.js';
export { closeMatches, parseMention, parseSlashInput, unknownCommandMessage, type Mention, type SlashInput } from './parse.js';
export { INIT_COMMAND, INIT_PROMPT } from './init.js';
export { keepUserLines, rememberKeptFile, settleKeptFile, type KeptFile, type KeptFileNotice } from './kept-file.js';
