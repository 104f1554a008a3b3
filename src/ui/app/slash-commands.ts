// What a submitted line does when it starts with `/`. Contract: `handleSlash` acts on the
// built-in commands (exit, new, sessions, help, agents, skills, mcp, model, agent, compact, fork, shells, tasks, undo, redo, rewind) through the
// callbacks it is given, turns an unknown name into a notice, and returns true for both;
// it returns false for plain prompts and custom commands, which the caller sends to the core
// (the core expands custom commands). The command menu and parsing stay in ../slash.ts.
// Commands that need an idle session (compact, fork, undo, redo, rewind), typed while a turn runs
// or is finishing, wait in the prompt queue and run in their turn.
import type { CompactSkipped } from '../../core/context/index.js';
import type { PromptEntry, RevertOutcome, RewindMode } from '../../core/engine.js';
import { errorMessage } from '../../core/errors.js';
import type { McpServerState, SessionMcpServers } from '../../core/mcp/manager.js';
import { modelProblem } from '../../core/provider/models.js';
import type { SessionRow } from '../../core/store/index.js';
import type { UiCore } from '../core-api.js';
import type { NamedItem } from '../components/input/completion.js';
import { parseSlash, unknownCommand } from '../slash.js';
import type { PromptQueue } from './use-prompt-queue.js';

/** A panel that takes the live region's place. */
export type Overlay =
  | { kind: 'picker' }
  | { kind: 'help' }
  | { kind: 'agents' }
  | { kind: 'skills' }
  | { kind: 'mcp'; states?: McpServerState[]; agentStates?: SessionMcpServers[] }
  | { kind: 'shells'; back?: { sessionId: string; shellId: string } }
  | { kind: 'shell-output'; sessionId: string; shellId: string; command: string }
  | { kind: 'tasks' }
  | { kind: 'rewind'; prompts: PromptEntry[] }
  | { kind: 'revert'; sessionId: string; label: string; question: string }
  | undefined;

export interface SlashContext {
  core: UiCore;
  rootId: string;
  /** The root's stored row: its agent and model. */
  row: SessionRow | undefined;
  setRow(row: SessionRow): void;
  notify(text: string | undefined): void;
  setOverlay(overlay: Overlay): void;
  openRoot(id: string, opts?: { reload?: boolean }): void;
  /** Leaves the app. */
  exit(): void;
  queue: Pick<PromptQueue, 'isBusy' | 'runExclusive' | 'whenIdle'>;
}

/** Handles `text` if it is a built-in or unknown slash command; see the contract above. */
export function handleSlash(text: string, menu: readonly NamedItem[], ctx: SlashContext): boolean {
  const slash = parseSlash(text);
  if (!slash) return false;
  // Built-ins act on the UI; custom commands are the core's to run.
  if (runBuiltinCommand(slash.name, slash.args, ctx)) return true;
  const unknown = unknownCommand(slash.name, menu);
  if (!unknown) return false;
  ctx.notify(unknown);
  return true;
}

/** Runs a built-in command; false when `name` is none (a custom command or a typo). */
export function runBuiltinCommand(name: string, args: string, ctx: SlashContext): boolean {
  const { core, rootId, row } = ctx;
  switch (name) {
    case 'exit':
    case 'quit':
      ctx.exit();
      return true;
    case 'new': {
      const created = core.createSession({ agent: row?.agent });
      ctx.openRoot(created.id);
      return true;
    }
    case 'sessions':
      ctx.setOverlay({ kind: 'picker' });
      return true;
    case 'help':
      ctx.setOverlay({ kind: 'help' });
      return true;
    case 'agents':
      ctx.setOverlay({ kind: 'agents' });
      return true;
    case 'skills':
      ctx.setOverlay({ kind: 'skills' });
      return true;
    case 'mcp':
      // The panel opens at once; the servers' states fill it in once they have started.
      ctx.setOverlay({ kind: 'mcp' });
      void (core.mcpStatus?.() ?? Promise.resolve([])).then(
        // Agents' own servers are listed as they are: a session's start only when its turn needs them.
        (states) => ctx.setOverlay({ kind: 'mcp', states, agentStates: core.agentMcpStatus?.() ?? [] }),
        (err: unknown) => ctx.notify(errorMessage(err)),
      );
      return true;
    case 'shells':
      // The app shows its live list, so a shell stopped from the panel leaves it.
      ctx.setOverlay({ kind: 'shells' });
      return true;
    case 'tasks':
      ctx.setOverlay({ kind: 'tasks' });
      return true;
    case 'model':
    case 'agent': {
      if (!args) {
        ctx.notify(name === 'model' ? `Model: ${row?.model ?? '?'} — use /model <provider/id>.` : `Agent: ${row?.agent ?? '?'} — use /agent <name>.`);
        return true;
      }
      // A typo must not silently become the model every later request fails on.
      const problem = name === 'model' ? modelProblem(args) : undefined;
      if (problem) {
        ctx.notify(problem);
        return true;
      }
      try {
        const updated = name === 'model' ? core.setModel(rootId, args) : core.setAgent(rootId, args);
        ctx.setRow(updated);
        ctx.notify(name === 'model' ? `Model set to ${updated.model}.` : `Agent set to ${updated.agent}.`);
      } catch (err) {
        ctx.notify(errorMessage(err));
      }
      return true;
    }
    case 'compact':
      // Typed while a turn runs or finishes, it waits for it (and the prompts queued before it).
      ctx.queue.whenIdle(typedCommand(name, args), () => {
        ctx.notify('Compacting the conversation…');
        // Prompts typed meanwhile are queued and sent once it is done.
        ctx.queue.runExclusive(() => core.compact(rootId, args).then((result) => ctx.notify('skipped' in result ? skippedCompaction(result) : undefined)));
      });
      return true;
    case 'fork': {
      const prompt = args.trim();
      if (!prompt) {
        ctx.notify('Say what the fork should do: /fork <prompt>.');
        return true;
      }
      const fork = core.fork?.bind(core);
      if (!fork) {
        ctx.notify('/fork is not available here.');
        return true;
      }
      // The fork copies the conversation as it stands once the running turn (and what was queued before) is over.
      ctx.queue.whenIdle(typedCommand(name, args), () => {
        ctx.queue.runExclusive(async () => {
          await fork(rootId, prompt);
          ctx.notify('Forked: a copy of this conversation works on it in the background; its result comes back here.');
        });
      });
      return true;
    }
    case 'undo':
    case 'redo':
      ctx.queue.whenIdle(typedCommand(name, args), () => {
        // A refusal (files changed since that overlap) arrives as a notice naming them; nothing changed.
        ctx.queue.runExclusive(async () => {
          const outcome = await (name === 'undo' ? core.undo(rootId) : core.redo(rootId));
          // The transcript is read again: undone turns are marked, redone ones come back.
          ctx.openRoot(rootId, { reload: true });
          ctx.notify(revertNotice(name, outcome));
        });
      });
      return true;
    case 'rewind':
      ctx.queue.whenIdle(typedCommand(name, args), () => openRewind(ctx));
      return true;
    default:
      return false;
  }
}

/** How a queued command is shown above the input: as the user typed it. */
function typedCommand(name: string, args: string): string {
  return args ? `/${name} ${args}` : `/${name}`;
}

/** Opens the rewind list (Esc Esc, or `/rewind` once the queue reaches it) unless a turn is running. */
export function openRewind(ctx: Pick<SlashContext, 'core' | 'rootId' | 'notify' | 'setOverlay'> & { queue: Pick<PromptQueue, 'isBusy'> }): void {
  if (ctx.queue.isBusy() || ctx.core.isRunning(ctx.rootId)) {
    ctx.notify('Wait for the running turn to finish (or press Esc) before /rewind.');
    return;
  }
  try {
    ctx.setOverlay({ kind: 'rewind', prompts: ctx.core.prompts(ctx.rootId) });
  } catch (err) {
    ctx.notify(errorMessage(err));
  }
}

/**
 * Rewinds to the picked prompt. Restoring the conversation reads the transcript again and
 * hands the prompt's text to `fillInput`; a conflict changes nothing and becomes a notice.
 */
export function runRewind(
  messageId: string,
  mode: RewindMode,
  ctx: Pick<SlashContext, 'core' | 'rootId' | 'notify' | 'openRoot' | 'queue'> & { fillInput(text: string): void },
): void {
  ctx.queue.runExclusive(async () => {
    const outcome = await ctx.core.rewind(ctx.rootId, messageId, mode);
    if (mode !== 'code') ctx.openRoot(ctx.rootId, { reload: true });
    ctx.notify(rewindNotice(mode, outcome));
    if (mode !== 'code' && outcome.prompt) ctx.fillInput(outcome.prompt.text);
  });
}

function rewindNotice(mode: RewindMode, outcome: RevertOutcome): string {
  const shown = shortPrompt(outcome);
  const files = filesRestored(outcome.files);
  if (mode === 'code') return `Rewound the code to before "${shown}": ${files}.`;
  const conversation = `Rewound the conversation to before "${shown}"`;
  return mode === 'conversation' ? `${conversation}; the files were left as they are.` : `${conversation}: ${files}.`;
}

/** One line saying what /undo or /redo did. */
function revertNotice(name: 'undo' | 'redo', outcome: RevertOutcome): string {
  const verb = name === 'undo' ? 'Undid' : 'Redid';
  return `${verb} "${shortPrompt(outcome)}": ${filesRestored(outcome.files)}.`;
}

function shortPrompt(outcome: RevertOutcome): string {
  const prompt = (outcome.prompt?.text ?? '').trim().split('\n')[0] ?? '';
  return prompt.length > 50 ? `${prompt.slice(0, 47)}...` : prompt;
}

function filesRestored(files: readonly string[]): string {
  if (files.length === 0) return 'no file needed changing';
  return `${files.length === 1 ? '1 file' : `${files.length} files`} restored (${files.slice(0, 5).join(', ')}${files.length > 5 ? ', …' : ''})`;
}

/** Why `/compact` sent nothing, in the user's terms. */
export function skippedCompaction(result: CompactSkipped): string {
  if (result.skipped === 'nothing-older') return 'Nothing to compact yet: the conversation is only its most recent turns, which stay verbatim.';
  return `Nothing compacted: the turns before the most recent ones come to only ~${roughTokens(result.olderTokens)} tokens, about what a summary of them would take.`;
}

function roughTokens(n: number): string {
  return n < 1000 ? String(n) : `${(n / 1000).toFixed(1)}k`;
}
