// Ends an app test: the rendered app first (so nothing reacts to the engine's last events),
// then every running turn, then the harness with its fake server and temp folders.
import type { render } from 'ink-testing-library';
import type { Harness } from '../../support/harness.js';

export async function closeApp(app: ReturnType<typeof render> | undefined, h: Harness | undefined): Promise<void> {
  app?.unmount();
  h?.engine.cancelAll();
  await h?.close();
}
