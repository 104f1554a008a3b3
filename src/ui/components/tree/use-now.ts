// A clock for live elapsed times and spinners, ticking only while something is active so
// an idle screen does not re-render.

import { useEffect, useState } from 'react';

export function useNow(active: boolean, intervalMs = 100): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (!active) return;
    const timer = setInterval(() => setNow(Date.now()), intervalMs);
    return () => clearInterval(timer);
  }, [active, intervalMs]);
  return now;
}
