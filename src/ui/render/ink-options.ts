// The options the app renders its screen with, shared with the render benchmark so it
// measures the same Ink set-up the user gets.
import type { RenderOptions } from 'ink';

/**
 * Whether the terminal says it speaks the kitty keyboard protocol (kitty, WezTerm, Ghostty),
 * outside tmux, which would not pass the protocol through. We decide from the environment
 * and never ask the terminal: while Ink waits for an answer (up to 200 ms) it hands the keys
 * typed meanwhile to the prompt twice, so a fast typist or a paste right after start-up
 * doubled its text. Switching the protocol on where a terminal does not honour it is
 * harmless: the request is ignored and keys keep their usual encoding.
 */
export function speaksKittyKeyboard(env: NodeJS.ProcessEnv): boolean {
  if (env.TMUX) return false;
  return 'KITTY_WINDOW_ID' in env || env.TERM === 'xterm-kitty' || env.TERM_PROGRAM === 'WezTerm' || env.TERM_PROGRAM === 'ghostty';
}

export const INK_RENDER_OPTIONS = {
  exitOnCtrlC: false,
  patchConsole: true,
  // Where the terminal speaks the kitty keyboard protocol, Shift+Enter is told apart from
  // Enter and inserts a newline. Elsewhere `\`+Enter, Ctrl+J and Alt+Enter do.
  kittyKeyboard: { mode: speaksKittyKeyboard(process.env) ? 'enabled' : 'disabled' },
} as const satisfies RenderOptions;
