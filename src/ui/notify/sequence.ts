// What to write to the terminal to raise a desktop notification. Contract: `notificationSequence`
// is pure — given the text and the environment it returns the bytes: OSC 9 for terminals that
// show it (iTerm2, WezTerm, kitty, Ghostty), OSC 777 for the ones that speak that form (foot,
// rxvt-unicode, VTE-based), else a plain bell; inside tmux the escape is wrapped in tmux's
// passthrough so it reaches the outer terminal. Control characters in the text are removed,
// so a model-written subject can never inject its own escapes.

export type NotificationStyle = 'osc9' | 'osc777' | 'bell';

const BEL = '\u0007';
const ESC = '\u001B';

/** Which form the terminal understands, from what it says about itself. */
export function notificationStyle(env: NodeJS.ProcessEnv): NotificationStyle {
  const program = (env.LC_TERMINAL ?? env.TERM_PROGRAM ?? '').toLowerCase();
  const term = (env.TERM ?? '').toLowerCase();
  if (program === 'iterm2' || program === 'iterm.app' || program === 'wezterm' || program === 'ghostty') return 'osc9';
  if (env.KITTY_WINDOW_ID || term === 'xterm-kitty' || term === 'xterm-ghostty') return 'osc9';
  if (term.startsWith('foot') || term.startsWith('rxvt-unicode') || env.VTE_VERSION) return 'osc777';
  return 'bell';
}

/** The text without control characters (C0, DEL, C1) and squeezed to one line. */
export function terminalSafe(text: string, max = 200): string {
  // eslint-disable-next-line no-control-regex -- control characters are exactly what is removed
  const flat = text.replace(/[\u0000-\u001F\u007F-\u009F]+/g, ' ').replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

/** The bytes that notify; `title` is used where the form has one (OSC 777). */
export function notificationSequence(title: string, body: string, env: NodeJS.ProcessEnv): string {
  const style = notificationStyle(env);
  if (style === 'bell') return BEL;
  const safeTitle = terminalSafe(title, 60).replaceAll(';', ',');
  const safeBody = terminalSafe(body);
  const osc = style === 'osc9' ? `${ESC}]9;${safeTitle}: ${safeBody}${BEL}` : `${ESC}]777;notify;${safeTitle};${safeBody}${BEL}`;
  return env.TMUX ? tmuxPassthrough(osc) : osc;
}

/** tmux forwards a DCS `tmux;` string to the outer terminal, with each ESC inside doubled. */
function tmuxPassthrough(sequence: string): string {
  return `${ESC}Ptmux;${sequence.replaceAll(ESC, ESC + ESC)}${ESC}\\`;
}
