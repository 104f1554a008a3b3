// The interactive UI's entry, loaded lazily by the CLI (src/cli/commands/tui.ts) so `run`
// never pays for Ink and React. Contract: `renderTui` draws the app over a core API the
// caller built and keeps the terminal sane however the process ends (quit, signals, crashes),
// resolving with the exit code; `askTrust` and `askNoKey` are the two screens shown before
// it. Nothing here builds an engine or a store: that wiring lives in cli/.
import { appendFileSync, writeSync } from 'node:fs';
import { render } from 'ink';
import type { Config } from '../core/config/index.js';
import { exitNowIfStuck } from '../core/exit-now.js';
import { App } from './app.js';
import { loadMarkdown } from './render/markdown.js';
import type { UiCore } from './core-api.js';
import { INK_RENDER_OPTIONS } from './render/ink-options.js';
import { BRACKETED_PASTE_OFF, BRACKETED_PASTE_ON } from './keys/key-stream.js';
import { FOCUS_REPORTING_OFF, FOCUS_REPORTING_ON } from './notify/focus.js';
import type { NotifySettings } from './notify/use-notifications.js';
import { NoKeyScreen } from './screens/NoKeyScreen.js';
import { TrustScreen, type TrustChoice } from './screens/TrustScreen.js';

export { addInputHistory, loadInputHistory, saveInputHistory } from './input-history.js';
export type { TrustChoice };

/** The core API the running app needs: what the UI calls, and cancelling everything on quit. */
export type TuiCore = UiCore & { cancelAll(): void };

const RESTORE_TERMINAL = `\u001B[?25h\u001B[0m${BRACKETED_PASTE_OFF}${FOCUS_REPORTING_OFF}`;

export async function askTrust(root: string, ignored: readonly string[], changed: readonly string[] = []): Promise<TrustChoice> {
  let choice: TrustChoice = 'not-now';
  const instance = render(<TrustScreen root={root} ignored={ignored} changed={changed} onChoice={(c) => (choice = c)} />, { exitOnCtrlC: false });
  await instance.waitUntilExit();
  instance.clear();
  return choice;
}

export async function askNoKey(provider: string, problem: string): Promise<'demo' | 'quit'> {
  let choice: 'demo' | 'quit' = 'quit';
  const instance = render(<NoKeyScreen provider={provider} problem={problem} onChoice={(c) => (choice = c)} />, { exitOnCtrlC: false });
  await instance.waitUntilExit();
  instance.clear();
  return choice;
}

export interface RenderOptions {
  rootId: string;
  initialPrompt?: string;
  keybinds: Config['keybinds'];
  banner?: string;
  agentColors: Record<string, string>;
  inputHistory?: { entries: readonly string[]; append(entry: string): void };
  completeFile: (prefix: string) => readonly string[];
  /** Work that can wait until the first frame is on screen. */
  afterFirstFrame?: () => void;
  openPicker?: boolean;
  notify?: NotifySettings;
}

/** Renders the app and keeps the terminal sane on quit, SIGINT/SIGTERM and crashes. */
export async function renderTui(engine: TuiCore, opts: RenderOptions): Promise<number> {
  // The first frame formats markdown only when it shows messages; else marked loads after it.
  if (opts.initialPrompt || (engine.history(opts.rootId)?.messages.length ?? 0) > 0) await loadMarkdown();
  const traced = traceFirstWrite();
  const instance = render(
    <App
      core={engine}
      rootId={opts.rootId}
      keybinds={opts.keybinds}
      agentColors={opts.agentColors}
      completeFile={opts.completeFile}
      {...(opts.initialPrompt ? { initialPrompt: opts.initialPrompt } : {})}
      {...(opts.banner ? { banner: opts.banner } : {})}
      {...(opts.inputHistory ? { inputHistory: opts.inputHistory } : {})}
      {...(opts.openPicker ? { openPicker: true } : {})}
      {...(opts.notify ? { notify: opts.notify } : {})}
    />,
    INK_RENDER_OPTIONS,
  );
  // Ink draws the first frame synchronously inside render().
  traced?.done();
  // Pastes now arrive wrapped in markers, so only they are taken as pastes and keys read
  // together are still keys. However the process ends, the mode is turned off again, or
  // the user's shell would see the markers around every later paste.
  // Focus reports (ESC[I / ESC[O) tell notifications whether the user is looking; off again likewise.
  process.stdout.write(BRACKETED_PASTE_ON + FOCUS_REPORTING_ON);
  const pasteOff = () => {
    try {
      writeSync(1, BRACKETED_PASTE_OFF + FOCUS_REPORTING_OFF);
    } catch {
      // The terminal is gone: nothing left to restore.
    }
  };
  process.on('exit', pasteOff);
  opts.afterFirstFrame?.();
  let code = 0;
  const quit = (exitCode: number) => {
    code = exitCode;
    engine.cancelAll();
    instance.unmount();
  };
  // The terminal is gone (SIGHUP) or we are told to stop (SIGTERM, or SIGINT from `kill`:
  // Ctrl+C itself arrives as a key in raw mode): nothing can be drawn or read any
  // more, and a raw-mode stdin on a dead terminal would spin. Finished messages are already
  // stored; sessions cut short are marked interrupted at the next start.
  const onSignal = () => {
    quit(130);
    setImmediate(() => void exitNowIfStuck(500, 'SIGTERM').then(() => process.exit(130)));
  };
  const onOutputError = () => onSignal();
  const onCrash = (err: unknown) => {
    quit(1);
    process.stdout.write(RESTORE_TERMINAL);
    process.stderr.write(`Error: ${err instanceof Error ? err.message : String(err)}\n`);
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGHUP', onSignal);
  process.on('SIGINT', onSignal);
  process.stdout.on('error', onOutputError);
  process.on('uncaughtException', onCrash);
  process.on('unhandledRejection', onCrash);
  try {
    await instance.waitUntilExit();
  } finally {
    engine.cancelAll();
    process.off('SIGTERM', onSignal);
    process.off('SIGHUP', onSignal);
    process.off('SIGINT', onSignal);
    process.stdout.off('error', onOutputError);
    process.off('uncaughtException', onCrash);
    process.off('unhandledRejection', onCrash);
    process.off('exit', pasteOff);
    process.stdout.write(RESTORE_TERMINAL);
  }
  return code;
}

/** Whether Node has loaded its fetch implementation (its list of loaded internal modules says). */
function undiciLoaded(): boolean {
  const loaded: unknown = Reflect.get(process, 'moduleLoadList');
  return Array.isArray(loaded) && loaded.some((name) => String(name).includes('internal/deps/undici'));
}

/**
 * With OPENCODE_INK_TRACE_STARTUP=<file>, notes when the first frame is written to the
 * terminal and appends the start-up milestones (ms since the process started) to that file
 * as one JSON line: the start-up benchmark reads it.
 */
function traceFirstWrite(): { done(): void } | undefined {
  const file = process.env.OPENCODE_INK_TRACE_STARTUP;
  if (!file) return undefined;
  const stdout = process.stdout;
  const write = stdout.write;
  let cpu: NodeJS.CpuUsage | undefined;
  let fetchLoaded = false;
  stdout.write = function (this: NodeJS.WriteStream, ...args: Parameters<typeof write>) {
    performance.mark('tui:first-frame');
    cpu = process.cpuUsage();
    fetchLoaded = undiciLoaded();
    stdout.write = write;
    return write.apply(this, args);
  } as typeof write;
  return {
    done() {
      stdout.write = write;
      const marks: Record<string, number> = Object.fromEntries(performance.getEntriesByType('mark').map((m) => [m.name, Math.round(m.startTime * 10) / 10]));
      // CPU time (all threads) until the first frame: steadier than wall time on a busy machine.
      if (cpu) marks['cpu:first-frame'] = Math.round((cpu.user + cpu.system) / 100) / 10;
      // 1 when Node's fetch (undici, ~20 ms to load) was loaded before the first frame: nothing there needs it.
      marks['undici:before-first-frame'] = fetchLoaded ? 1 : 0;
      appendFileSync(file, `${JSON.stringify(marks)}\n`);
    },
  };
}
