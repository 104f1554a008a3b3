// Start-up milestones for the trace OPENCODE_INK_TRACE_STARTUP asks for (ui/launch.tsx writes
// them out; bench/tui-startup.bench.ts reads them). Only then: Node's `performance` global
// loads perf_hooks and nine modules of its own on first use, ~1 ms that a `run` or a UI start
// that nobody traces need not pay.
export const STARTUP_TRACE_ENV = 'OPENCODE_INK_TRACE_STARTUP';

export function startupMark(name: string): void {
  if (process.env[STARTUP_TRACE_ENV]) performance.mark(name);
}
