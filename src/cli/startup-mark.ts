// Start-up milestones for the trace OPENCODE_INK_TRACE_STARTUP asks for (ui/launch.tsx writes
// them out; bench/tui-startup.bench.ts reads them). Only then: Node's `performance` global
// loads perf_hooks and nine modules of its own on first use, ~1 ms that a `run` or a UI start
// that nobody traces need not pay. Self-contained: src/boot (dist/boot.cjs) bundles it too.
export function startupMark(name: string): void {
  if (process.env.OPENCODE_INK_TRACE_STARTUP) performance.mark(name);
}
