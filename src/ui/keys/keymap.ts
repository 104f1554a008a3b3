// The leader-key state machine: a pure function of (key, time) so it is testable without
// React. After the leader chord, the next key within the timeout completes `<leader>X`.

import { parseKeybind, formatKeybind, chordEquals, type Keybind } from './keybind.js';
import { toChord, type Chord, type KeyFlags } from './key-event.js';
import { DEFAULT_KEYBINDS as CONFIG_DEFAULT_KEYBINDS } from '../../core/config/schema.js';

export const KEYMAP_ACTIONS = [
  'session_child_cycle',
  'session_child_cycle_reverse',
  'session_parent',
  'session_child_first',
  'session_list',
  'session_child_cancel',
  'session_child_revert',
  'session_child_select',
  'team_tasks',
  'agents_panel',
] as const;

export type KeymapAction = (typeof KEYMAP_ACTIONS)[number];

/** The `keybinds` config key (DESIGN §3); unknown keys are ignored so config can grow. */
export type KeybindConfig = { leader?: string } & { [A in KeymapAction]?: string };

// The defaults live once, in the config schema that fills them in.
export const DEFAULT_KEYBINDS: Required<KeybindConfig> = CONFIG_DEFAULT_KEYBINDS;

export const LEADER_TIMEOUT_MS = 1500;

export interface Keymap {
  /** Feed one key press; returns the action it completes, if any. */
  handle(input: string, key: KeyFlags, now: number): KeymapAction | undefined;
  /** True while a leader chord waits for its second key (the UI hides it from the input). */
  isPending(now: number): boolean;
  reset(): void;
  /** For help screens: each action with its human-readable keys. */
  describe(): Array<{ action: KeymapAction; keys: string[] }>;
}

interface Binding {
  action: KeymapAction;
  bind: Keybind;
}

export interface KeymapOptions {
  timeoutMs?: number;
}

export function createKeymap(config: KeybindConfig = {}, options: KeymapOptions = {}): Keymap {
  const timeoutMs = options.timeoutMs ?? LEADER_TIMEOUT_MS;
  const merged = { ...DEFAULT_KEYBINDS, ...stripUndefined(config) };
  const leaderBinds = parseKeybind(merged.leader);
  if (leaderBinds.some((b) => b.leader)) throw new Error(`invalid keybind "${merged.leader}": the leader cannot use <leader>`);
  const leaders: Chord[] = leaderBinds.map((b) => b.chord);

  const bindings: Binding[] = [];
  for (const action of KEYMAP_ACTIONS) {
    for (const bind of parseKeybind(merged[action])) {
      if (bind.leader && leaders.length === 0) {
        throw new Error(`keybind ${action} uses <leader> but no leader key is set`);
      }
      bindings.push({ action, bind });
    }
  }

  let leaderAt: number | undefined;
  const pending = (now: number): boolean => leaderAt !== undefined && now - leaderAt <= timeoutMs;

  return {
    handle(input, key, now) {
      const chord = toChord(input, key);
      if (pending(now)) {
        leaderAt = undefined;
        const hit = bindings.find((b) => b.bind.leader && chordEquals(b.bind.chord, chord));
        if (hit) return hit.action;
        // Pressing the leader again restarts the wait rather than being swallowed.
        if (leaders.some((l) => chordEquals(l, chord))) leaderAt = now;
        return undefined;
      }
      leaderAt = undefined;
      // Direct bindings win over the leader so a user can rebind the leader chord itself.
      const direct = bindings.find((b) => !b.bind.leader && chordEquals(b.bind.chord, chord));
      if (direct) return direct.action;
      if (leaders.some((l) => chordEquals(l, chord))) leaderAt = now;
      return undefined;
    },
    isPending: pending,
    reset() {
      leaderAt = undefined;
    },
    describe() {
      return KEYMAP_ACTIONS.map((action) => ({
        action,
        keys: bindings.filter((b) => b.action === action).map((b) => formatKeybind(b.bind, leaders[0])),
      }));
    },
  };
}

function stripUndefined(config: KeybindConfig): KeybindConfig {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(config)) if (typeof v === 'string') out[k] = v;
  return out as KeybindConfig;
}
