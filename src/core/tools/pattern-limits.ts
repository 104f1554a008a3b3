// Bounds on the glob and gitignore patterns the tools match, whoever wrote them (the model,
// or a cloned repository's .gitignore). The matchers behind them (`ignore`, fast-glob) turn
// each `**` into a repeated regex group that backtracks, so the cost of one test grows like
// depth^(count of ** + 1), and fast-glob expands braces up front, so `{a,b}` twenty times
// over is a million patterns. Both are synchronous: one bad pattern would freeze the program.
//
// Contract: pure checks; `checkPattern` throws a ToolError naming the pattern and the limit.
import { ToolError } from './types.js';

/** More `**` than this in one pattern makes matching crawl over deep folders. */
export const MAX_GLOBSTARS = 3;
/** More alternatives than this from one pattern is no longer a filter but a way to stall. */
export const MAX_BRACE_ALTERNATIVES = 256;

export function globstarCount(pattern: string): number {
  return pattern.split('**').length - 1;
}

/** How many patterns the `{a,b}` groups of a pattern expand to, at least (innermost groups only). */
export function braceAlternatives(pattern: string): number {
  let total = 1;
  for (const [, inner] of pattern.matchAll(/\{([^{}]*)\}/g)) total *= inner!.split(',').length;
  return total;
}

/** A ToolError for a pattern too costly to match; `what` names it ("glob", "ignore pattern"). */
export function checkPattern(pattern: string, what: string): void {
  if (globstarCount(pattern) > MAX_GLOBSTARS) {
    throw new ToolError(`The ${what} ${JSON.stringify(pattern)} has more than ${MAX_GLOBSTARS} "**", which makes matching far too slow; use at most ${MAX_GLOBSTARS}.`);
  }
  if (braceAlternatives(pattern) > MAX_BRACE_ALTERNATIVES) {
    throw new ToolError(`The ${what} ${JSON.stringify(pattern)} expands to more than ${MAX_BRACE_ALTERNATIVES} patterns; use fewer braces.`);
  }
}
