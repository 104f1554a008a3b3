// The built-in tool set, in the order the model sees it. Agents and sub-agents narrow this
// list by name; they never add to it here.
import { bashTool } from './bash.js';
import { editTool } from './edit.js';
import { globTool } from './glob.js';
import { grepTool } from './grep.js';
import { listTool } from './list.js';
import { readTool } from './read.js';
import { bashOutputTool, killShellTool } from './shell-tools.js';
import { todoreadTool, todowriteTool } from './todo.js';
import { taskListTool } from '../team/task-list.js';
import type { Tool } from './types.js';
import { webfetchTool } from './webfetch.js';
import { writeTool } from './write.js';

export const BUILTIN_TOOLS: readonly Tool[] = [
  readTool,
  writeTool,
  editTool,
  listTool,
  globTool,
  grepTool,
  bashTool,
  bashOutputTool,
  killShellTool,
  webfetchTool,
  todowriteTool,
  todoreadTool,
  taskListTool,
];

export { bashTool, bashOutputTool, killShellTool, editTool, globTool, grepTool, listTool, readTool, todoreadTool, todowriteTool, webfetchTool, writeTool };
export { grep, findRipgrep, searchWithJs, searchWithRipgrep, type GrepBackend, type GrepMode, type GrepQuery } from './grep.js';
export { htmlToMarkdown, htmlToText } from './webfetch.js';
export { displayPath, isInside, resolvePath } from './paths.js';
