// The whole TUI (<App>) rendered over a core for a test, the way `opencode-ink` starts it:
// on a new root session unless the test names one, optionally with a first prompt the app
// sends once its screen is up. `openApp` also waits until the prompt is ready for typing.
import { render } from 'ink-testing-library';
import { App } from '../../src/ui/app.js';
import type { UiCore } from '../../src/ui/core-api.js';
import { waitForText } from './wait.js';

/** What ink-testing-library's `render` gives, plus the root session the app opened on. */
export type RenderedApp = ReturnType<typeof render> & { rootId: string };

export interface AppOptions {
  /** The root session to show; a new one of `core` when absent. */
  rootId?: string;
  /** Sent as the first prompt once the screen is up. */
  initialPrompt?: string;
}

/** Renders <App> over `core` and returns at once (the first frame may not be drawn yet). */
export function renderApp(core: UiCore, options: AppOptions = {}): RenderedApp {
  const rootId = options.rootId ?? core.createSession().id;
  const rendered = render(<App core={core} rootId={rootId} {...(options.initialPrompt !== undefined ? { initialPrompt: options.initialPrompt } : {})} />);
  return Object.assign(rendered, { rootId });
}

/** Renders <App> over `core` and waits until its prompt shows the placeholder, ready for keys. */
export async function openApp(core: UiCore, options: AppOptions = {}): Promise<RenderedApp> {
  const app = renderApp(core, options);
  await waitForText(() => app.lastFrame() ?? '', (frame) => frame.includes('Ask anything'), 'the prompt of the app', { timeoutMs: 5000, intervalMs: 5 });
  return app;
}
