// The options the app renders its screen with, shared with the render benchmark so it
// measures the same Ink set-up the user gets.
import type { RenderOptions } from 'ink';

export const INK_RENDER_OPTIONS = {
  exitOnCtrlC: false,
  patchConsole: true,
} as const satisfies RenderOptions;
