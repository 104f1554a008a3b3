// /undo, /redo and /rewind typed in an editor's prompt (DESIGN §18), carried out by the server
// instead of reaching the model.
//
// Contract
// - `checkpointCommand(text)` recognises one of them as a prompt's whole text (the core's own
//   slash parsing); any other text, `/foo` included, is undefined and goes to the core as before.
// - `runCheckpointCommand` carries it out through the Engine's checkpoint API, the one the TUI
//   and `opencode-ink undo` use, and answers what to tell the user: what was restored, the prompt
//   list (`/rewind` alone), or one sentence saying why nothing changed (overlapping later edits,
//   nothing to undo, a bad argument). Restores are three-way in the core: a refusal has changed
//   nothing. Only errors that are not the user's (bugs) are thrown.
// - `/rewind N [code|conversation|both]` numbers the prompts still in the conversation, oldest
//   first, as `/rewind` lists them; the default is both, as the TUI menu's first choice.
import type { Engine, PromptEntry, RevertOutcome, RewindMode } from '../core/engine.js';
import { parseSlashInput } from '../core/commands/index.js';
import { sentence, UserFacingError } from '../core/errors.js';

export type CheckpointCommandName = 'undo' | 'redo' | 'rewind';

export interface CheckpointCommand {
  name: CheckpointCommandName;
  /** What followed the name, trimmed. */
  args: string;
}

export const CHECKPOINT_COMMANDS: ReadonlyArray<{ name: CheckpointCommandName; description: string; hint?: string }> = [
  { name: 'undo', description: 'Put the files back as they were before the last prompt and hide that turn from the conversation' },
  { name: 'redo', description: 'Re-apply what the last /undo took back' },
  {
    name: 'rewind',
    description: 'Go back to before an earlier prompt: code, conversation or both (alone: list the prompts)',
    hint: 'N code|conversation|both',
  },
];

const REWIND_MODES: readonly RewindMode[] = ['both', 'code', 'conversation'];
const PREVIEW_CHARS = 60;
const FILES_SHOWN = 10;

/** The checkpoint command `text` is, or undefined for anything else. */
export function checkpointCommand(text: string): CheckpointCommand | undefined {
  const slash = parseSlashInput(text);
  const known = slash && CHECKPOINT_COMMANDS.find((c) => c.name === slash.name);
  return slash && known ? { name: known.name, args: slash.args } : undefined;
}

export type CheckpointApi = Pick<Engine, 'prompts' | 'undo' | 'redo' | 'rewind'>;

/** Runs the command on a root session; resolves to the reply for the user (see the contract). */
export async function runCheckpointCommand(engine: CheckpointApi, sessionId: string, command: CheckpointCommand): Promise<string> {
  try {
    switch (command.name) {
      case 'undo':
      case 'redo':
        if (command.args) return `/${command.name} takes no arguments: send /${command.name} alone.`;
        return command.name === 'undo' ? undoReply(await engine.undo(sessionId)) : redoReply(await engine.redo(sessionId));
      case 'rewind':
        return await rewind(engine, sessionId, command.args);
    }
  } catch (err) {
    // A refusal from the core (overlapping edits, nothing to undo): nothing was changed.
    if (err instanceof UserFacingError) return sentence(err.message);
    throw err;
  }
}

async function rewind(engine: CheckpointApi, sessionId: string, args: string): Promise<string> {
  const prompts = engine.prompts(sessionId).filter((p) => !p.undone);
  if (!args) return promptList(prompts);
  const [number, mode = 'both', ...extra] = args.split(/\s+/);
  if (!/^\d+$/.test(number!)) return `"${number}" is not a prompt number: send /rewind to list the prompts, then /rewind N [code|conversation|both].`;
  if (!isRewindMode(mode)) return `"${mode}" is not something /rewind restores: use code, conversation or both.`;
  if (extra.length) return `/rewind takes a prompt number and one of code, conversation or both; "${extra.join(' ')}" is one word too many.`;
  const n = Number(number);
  const prompt = prompts[n - 1];
  if (!prompt) {
    if (!prompts.length) return 'There are no prompts to rewind to yet.';
    return `There is no prompt ${n}: this session has ${count(prompts.length, 'prompt')} to rewind to (send /rewind to list them).`;
  }
  return rewindReply(n, mode, await engine.rewind(sessionId, prompt.message_id, mode));
}

function isRewindMode(word: string): word is RewindMode {
  return (REWIND_MODES as readonly string[]).includes(word);
}

function promptList(prompts: readonly PromptEntry[]): string {
  if (!prompts.length) return 'There are no prompts to rewind to yet.';
  const lines = prompts.map((p, i) => `${i + 1}. ${preview(p.text)}${p.has_snapshot ? '' : ' (no snapshot of the files: conversation only)'}`);
  return [
    'Prompts of this session, oldest first:',
    '',
    ...lines,
    '',
    'Send /rewind N to go back to before prompt N, code and conversation; /rewind N code or /rewind N conversation restores only one of them.',
  ].join('\n');
}

function undoReply(outcome: RevertOutcome): string {
  return `Undid "${preview(outcome.prompt?.text ?? '')}": ${filesRestored(outcome.files)}. That prompt and its answers are left out of the conversation from now on; /redo brings them back.`;
}

function redoReply(outcome: RevertOutcome): string {
  return `Redid "${preview(outcome.prompt?.text ?? '')}": ${filesRestored(outcome.files)}. That prompt and its answers are back in the conversation.`;
}

function rewindReply(n: number, mode: RewindMode, outcome: RevertOutcome): string {
  const before = `before prompt ${n} "${preview(outcome.prompt?.text ?? '')}"`;
  switch (mode) {
    case 'code':
      return `Rewound the code to ${before}: ${filesRestored(outcome.files)}. The conversation is unchanged.`;
    case 'conversation':
      return `Rewound the conversation to ${before}: it and everything after it are left out from now on. The files were left as they are.`;
    case 'both':
      return `Rewound to ${before}: ${filesRestored(outcome.files)}, and that prompt and everything after it are left out of the conversation from now on.`;
  }
}

function filesRestored(files: readonly string[]): string {
  if (!files.length) return 'no file needed changing';
  const shown = files.slice(0, FILES_SHOWN).join(', ');
  return `${count(files.length, 'file')} restored (${shown}${files.length > FILES_SHOWN ? ', …' : ''})`;
}

function preview(text: string): string {
  const line = text.trim().split('\n')[0] ?? '';
  return line.length > PREVIEW_CHARS ? `${line.slice(0, PREVIEW_CHARS - 1)}…` : line;
}

function count(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}
