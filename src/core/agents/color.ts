// An agent's `color` as the terminal UI can draw it. Accepted: the colour names the UI's
// colour library knows (any case: `Blue`, `redbright`), a `#rgb`/`#rrggbb` hex (OpenCode's
// form), and the names of Claude Code's agent palette that library lacks (purple, orange,
// pink), which become the hex of that hue. Anything else would be drawn as no colour at all,
// so it is refused with a warning instead of being dropped in silence.

/** Names the terminal colour library (chalk, under Ink) draws; kept here because core never imports the UI. */
const TERMINAL_COLORS = [
  'black', 'red', 'green', 'yellow', 'blue', 'magenta', 'cyan', 'white', 'gray', 'grey',
  'blackBright', 'redBright', 'greenBright', 'yellowBright', 'blueBright', 'magentaBright', 'cyanBright', 'whiteBright',
] as const;

/** Claude Code's palette names the terminal library has no name for, as the nearest 256-colour hue. */
const CLAUDE_CODE_HUES: Readonly<Record<string, string>> = {
  purple: '#af87ff',
  orange: '#ff8700',
  pink: '#ff87d7',
};

const BY_LOWER_NAME: ReadonlyMap<string, string> = new Map([
  ...TERMINAL_COLORS.map((name): [string, string] => [name.toLowerCase(), name]),
  ...Object.entries(CLAUDE_CODE_HUES),
]);

export type AgentColorReading = { ok: true; color: string } | { ok: false; warning: string };

/** The colour to draw for `value`, or the warning that says why there is none. */
export function readAgentColor(value: string): AgentColorReading {
  const trimmed = value.trim();
  if (/^#(?:[0-9a-f]{3}|[0-9a-f]{6})$/i.test(trimmed)) return { ok: true, color: trimmed };
  const named = BY_LOWER_NAME.get(trimmed.toLowerCase());
  if (named) return { ok: true, color: named };
  const shown = trimmed.length > 40 ? `${trimmed.slice(0, 40)}…` : trimmed;
  return {
    ok: false,
    warning: `ignoring "color: ${shown}": expected a colour name (red, green, yellow, blue, magenta, cyan, purple, orange, pink, gray, …) or a #rrggbb hex.`,
  };
}
