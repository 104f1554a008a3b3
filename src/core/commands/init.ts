// `/init` (DESIGN §10, as Claude Code and OpenCode have it): a command the product ships, run by
// the build agent as an ordinary turn, that writes or updates `AGENTS.md` at the project root.
// Contract: it is a CommandDefinition like any custom one (so `run /init` works and a user's own
// `init.md` replaces it); its prompt tells the agent to keep every line of an existing AGENTS.md
// and change it with `edit`, never a whole-file `write`; `keeps` makes the engine check that in
// code after the turn (see kept-file.ts), so the user's text survives whatever the model does.
import type { CommandDefinition } from './definition.js';

export const INIT_PROMPT = `Create or update AGENTS.md at the project root: the file coding agents read first to work well in this repository.

First inspect the repository:
- how to build, test (including how to run a single test), lint and type-check it: package.json scripts, Makefile, justfile, pyproject.toml, Cargo.toml, go.mod, CI workflows;
- the layout: the main folders and what each holds, entry points;
- code style and conventions: formatter and linter configs, naming, error handling, how tests are written;
- rules already written down for agents or contributors: CLAUDE.md, .cursorrules, .cursor/rules/, .github/copilot-instructions.md, CONTRIBUTING.md, README.md. Carry over what matters from them.

Then write AGENTS.md:
- Keep it concise (about 20 to 60 lines): facts an agent cannot guess and would otherwise get wrong, not generic advice. Use short sections with headings such as "Commands", "Layout", "Conventions".
- Give exact commands, copied from the repository, never invented ones.
- If AGENTS.md already exists, it belongs to the user: keep every line of its existing text. Change it only with the edit tool, adding missing sections or refreshing ones that are out of date; never replace the file with a new write. Say in your reply what you added or changed.
- If it does not exist, create it with the write tool.

$ARGUMENTS`;

/** `/init [focus]`: extra words are appended to the prompt as the user's focus. */
export const INIT_COMMAND: CommandDefinition = {
  name: 'init',
  template: INIT_PROMPT,
  description: 'write or update AGENTS.md for this project: /init [focus]',
  agent: 'build',
  argumentHint: '[focus]',
  source: 'built-in',
  keeps: 'AGENTS.md',
};
