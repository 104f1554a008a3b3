// The background commands running now, in every session, for the status line's count and the
// `/shells` list. Contract: read from the core when the app starts and again on each
// `shell.started`/`shell.exited` event; empty for a core that keeps no shells.
import { useEffect, useState } from 'react';
import type { ShellSummary } from '../../core/shells/background-shells.js';
import type { UiCore } from '../core-api.js';

export function useRunningShells(core: UiCore): ShellSummary[] {
  const list = () => core.runningShells?.() ?? [];
  const [shells, setShells] = useState(list);
  useEffect(
    () =>
      core.on((event) => {
        if (event.type === 'shell.started' || event.type === 'shell.exited') setShells(core.runningShells?.() ?? []);
      }),
    [core],
  );
  return shells;
}
