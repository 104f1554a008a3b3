// The one-line footer: agent, model, tokens, cost (descendants included), sub-agent
// activity, the background commands running and the session title — or, in a child view, where you are among siblings.
// Always fits the width (80 columns by default) by shortening the title first. Under
// `--yes` it ends with a badge that is never shortened: approvals are being skipped.

import { Box, Text } from 'ink';
import { MAX_WIDTH, agentColor as defaultAgentColor, roleColor } from '../theme.js';
import { terminalSafe } from '../../core/text/terminal-safe.js';
import type { PermissionMode } from '../../core/permission/modes.js';

export interface StatusLineProps {
  agent: string;
  agentColor?: string;
  /** `provider/model` or a bare model id; the provider prefix is not shown. */
  model: string;
  /** Total tokens, descendants included. */
  tokens: number;
  /** USD, descendants included. */
  cost: number;
  /** Sub-agents running / waiting for a slot (a limit holds them). */
  running: number;
  queued: number;
  /** Sub-agents that have not sent their first model request yet, held by no limit. */
  starting?: number;
  /** Background commands running (`bash` with `run_in_background`), in every session. */
  shells?: number;
  title: string;
  /** Share of the model's context window the last request filled, 0–1 (DESIGN §12); omitted before the first reply. */
  contextFill?: number;
  /** Set in a child view: `label (index of total)`, index 1-based. */
  view?: { label: string; index: number; total: number };
  /** The session's permission mode (DESIGN §26); every mode but `default` shows a badge. */
  permissionMode?: PermissionMode;
  /** A model request waiting to be retried, e.g. `retrying (attempt 2 of 5): overloaded, next in 2 s`. */
  retry?: string;
  width?: number;
}

const SEP = ' · ';
/** What the status line says in each mode but `default`: Claude Code's wording, and how to leave it. */
export const MODE_BADGES: Readonly<Record<Exclude<PermissionMode, 'default'>, string>> = {
  acceptEdits: 'accept edits on (shift+tab)',
  plan: 'plan mode on (shift+tab)',
  dontAsk: "don't ask on (shift+tab)",
  bypassPermissions: 'bypass permissions on (shift+tab)',
};

export function formatTokens(n: number): string {
  const compact = (v: number, unit: string): string => `${v >= 100 ? Math.round(v) : Number(v.toFixed(1))}${unit}`;
  if (n < 1000) return `${Math.round(n)} tok`;
  if (n < 1_000_000) return `${compact(n / 1000, 'k')} tok`;
  return `${compact(n / 1_000_000, 'M')} tok`;
}

export function formatCost(cost: number): string {
  return `$${cost.toFixed(2)}`;
}

export function formatActivity(running: number, queued: number, short = false, starting = 0): string {
  if (running === 0 && queued === 0 && starting === 0) return '';
  const parts: string[] = [];
  const first = (n: number, word: string) => (short || parts.length > 0 ? `${n} ${word}` : `${n} sub-agent${n === 1 ? '' : 's'} ${word}`);
  if (running > 0) parts.push(first(running, 'running'));
  if (starting > 0) parts.push(first(starting, 'starting'));
  if (queued > 0) parts.push(first(queued, 'queued'));
  return parts.join(', ');
}

/** `2 background shells`, or `2 shells` when short; '' when none runs. */
export function formatShells(count: number, short = false): string {
  if (count <= 0) return '';
  const noun = count === 1 ? 'shell' : 'shells';
  return short ? `${count} ${noun}` : `${count} background ${noun}`;
}

/** Terminal columns a string takes: wide CJK and emoji count two, combining marks none. */
export function displayWidth(s: string): number {
  let w = 0;
  for (const ch of s) {
    if (/\p{M}/u.test(ch)) continue;
    w += isWide(ch.codePointAt(0) ?? 0) || /\p{Extended_Pictographic}/u.test(ch) ? 2 : 1;
  }
  return w;
}

export function truncate(s: string, width: number): string {
  if (displayWidth(s) <= width) return s;
  if (width <= 0) return '';
  let out = '';
  let w = 0;
  for (const ch of s) {
    const cw = displayWidth(ch);
    if (w + cw > width - 1) break;
    out += ch;
    w += cw;
  }
  return `${out}…`;
}

/** The segments to print, agent first, fitted to `width`. */
export function statusSegments(props: StatusLineProps, width: number): string[] {
  const model = props.model.includes('/') ? props.model.slice(props.model.indexOf('/') + 1) : props.model;
  const build = (short: boolean): string[] => {
    const head = props.view
      ? [`${props.view.label} (${props.view.index} of ${props.view.total})`, formatTokens(props.tokens), formatCost(props.cost)]
      : [props.agent, model, formatTokens(props.tokens), formatCost(props.cost)];
    if (props.contextFill !== undefined) head.push(`ctx ${Math.min(999, Math.round(props.contextFill * 100))}%`);
    // What the user is waiting out goes before the rest: a bare spinner looks stuck.
    if (props.retry) head.push(props.retry);
    const activity = formatActivity(props.running, props.queued, short, props.starting ?? 0);
    const shells = formatShells(props.shells ?? 0, short);
    return [...head, ...(activity ? [activity] : []), ...(shells ? [shells] : [])];
  };
  const title = terminalSafe(props.title).replace(/\s+/g, ' ').trim();
  if (props.view || title === '') {
    const long = build(false);
    return displayWidth(long.join(SEP)) <= width ? long : fitAll(build(true), width);
  }
  // Wordy activity first, then the terse one, before the title starts losing words.
  for (const short of [false, true]) {
    const line = [...build(short), title];
    if (displayWidth(line.join(SEP)) <= width) return line;
  }
  const head = build(true);
  const room = width - displayWidth(head.join(SEP)) - SEP.length;
  // A title cut to a stub says nothing; below that, drop it.
  if (room >= 8) return [...head, truncate(title, room)];
  return fitAll(head, width);
}

function fitAll(segments: string[], width: number): string[] {
  if (displayWidth(segments.join(SEP)) <= width) return segments;
  // Narrow terminal: cut the line as a whole, keeping the agent's own segment intact when it fits.
  const joined = truncate(segments.join(SEP), width);
  return [joined];
}

export function StatusLine(props: StatusLineProps) {
  const width = props.width ?? MAX_WIDTH;
  const mode = props.permissionMode ?? 'default';
  const badge = mode === 'default' ? '' : truncate(MODE_BADGES[mode], width);
  // The badge's room is taken first; the usual segments fit into what is left.
  const room = badge ? width - displayWidth(badge) - SEP.length : width;
  const segments = room > 0 ? statusSegments(props, room) : [];
  const [first = '', ...rest] = segments;
  const color = props.agentColor ?? defaultAgentColor(props.view ? props.view.label : props.agent);
  const muted = roleColor('muted');
  return (
    <Box width={width}>
      <Text wrap="truncate-end">
        <Text color={color} bold>
          {first}
        </Text>
        {rest.map((seg, i) => (
          <Text key={i}>
            <Text color={muted}>{SEP}</Text>
            {seg}
          </Text>
        ))}
        {badge ? (
          <Text>
            {first ? <Text color={muted}>{SEP}</Text> : null}
            <Text color={roleColor('warning')} bold>
              {badge}
            </Text>
          </Text>
        ) : null}
      </Text>
    </Box>
  );
}

function isWide(cp: number): boolean {
  return (
    (cp >= 0x1100 && cp <= 0x115f) ||
    (cp >= 0x2e80 && cp <= 0xa4cf && cp !== 0x303f) ||
    (cp >= 0xac00 && cp <= 0xd7a3) ||
    (cp >= 0xf900 && cp <= 0xfaff) ||
    (cp >= 0xfe30 && cp <= 0xfe4f) ||
    (cp >= 0xff00 && cp <= 0xff60) ||
    (cp >= 0xffe0 && cp <= 0xffe6) ||
    (cp >= 0x20000 && cp <= 0x3fffd)
  );
}
