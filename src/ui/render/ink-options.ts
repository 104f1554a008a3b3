// The options the app renders its screen with, shared with the render benchmark so it
// measures the same Ink set-up the user gets.
import type { RenderOptions } from 'ink';

export const INK_RENDER_OPTIONS = {
  exitOnCtrlC: false,
  patchConsole: true,
  // Where the terminal speaks the kitty keyboard protocol (kitty, WezTerm, Ghostty; Ink
  // asks the terminal before turning it on), Shift+Enter is told apart from Enter and
  // inserts a newline. Elsewhere `\`+Enter, Ctrl+J and Alt+Enter do.
  kittyKeyboard: { mode: 'auto' },
} as const satisfies RenderOptions;
