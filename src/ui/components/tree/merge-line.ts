// The line a finished isolated task adds under its block (DESIGN §17): what its worktree's
// merge did — "merged 3 files", "conflict in a.ts — kept on opencode/ses_…", "not merged —
// kept on opencode/ses_…". From the typed task outcome; for a call loaded from history, from
// the attributes of its `<task>` result. Plain strings, no React, so row counting can use it.
import type { ToolCallItem } from '../../state/types.js';

export interface MergeLine {
  text: string;
  tone: 'success' | 'warning' | 'muted';
}

export function mergeLine(call: ToolCallItem): MergeLine | undefined {
  const merge = call.taskOutcome?.merge ?? fromOutput(call.output);
  if (!merge) return undefined;
  const count = (n: number) => `${n} file${n === 1 ? '' : 's'}`;
  switch (merge.state) {
    case 'merged':
      return { text: `merged ${count(merge.files.length)}`, tone: 'success' };
    case 'conflict': {
      const files = merge.files.length > 3 ? `${merge.files.slice(0, 3).join(', ')} +${merge.files.length - 3}` : merge.files.join(', ');
      return { text: `conflict in ${files || 'the merge'}${merge.branch ? ` — kept on ${merge.branch}` : ''}`, tone: 'warning' };
    }
    case 'none':
      if (merge.branch) return { text: `not merged — kept on ${merge.branch}`, tone: 'warning' };
      return { text: 'no changes to merge', tone: 'muted' };
  }
}

/** `<task … merge="…" branch="…">` of a result whose metadata was not kept (history). */
function fromOutput(output: string | undefined): { state: 'merged' | 'conflict' | 'none'; files: string[]; branch?: string } | undefined {
  const head = output ? /^<task\b[^>]*>/.exec(output)?.[0] : undefined;
  const state = head ? /\bmerge="(merged|conflict|none)"/.exec(head)?.[1] : undefined;
  if (state !== 'merged' && state !== 'conflict' && state !== 'none') return undefined;
  const branch = /\bbranch="([^"]+)"/.exec(head!)?.[1];
  // The sentences of result.ts's mergeSentence.
  const listed = /uncommitted changes: (.*?)\.<\/merge>/.exec(output!)?.[1] ?? / in (.*?)\. Nothing was written/.exec(output!)?.[1];
  return { state, files: listed ? listed.split(', ') : [], ...(branch ? { branch } : {}) };
}
