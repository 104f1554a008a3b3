// How many background commands run now, in every session, for the status line. Contract: read
// from the core when the app starts and again on each `shell.started`/`shell.exited` event;
// 0 for a core that keeps no shells.
import { useEffect, useState } from 'react';
import type { UiCore } from '../core-api.js';

export function useShellCount(core: UiCore): number {
  const count = () => core.runningShells?.().length ?? 0;
  const [shells, setShells] = useState(count);
  useEffect(
    () =>
      core.on((event) => {
        if (event.type === 'shell.started' || event.type === 'shell.exited') setShells(core.runningShells?.().length ?? 0);
      }),
    [core],
  );
  return shells;
}
