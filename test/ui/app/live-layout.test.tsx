// The row counts behind fitting the live region to the terminal must agree with what Ink
// actually draws: each estimate is checked against the component rendered to a string.
import { Box, Text, renderToString } from 'ink';
import type { ReactElement } from 'react';
import { describe, expect, it } from 'vitest';
import { ApprovalDialog, approvalChromeRows, diffRows, fitDiffLines, subjectTextRows } from '../../../src/ui/components/dialogs/ApprovalDialog.js';
import { AskUserDialog, askUserRows } from '../../../src/ui/components/dialogs/AskUserDialog.js';
import { PromptInput, promptRows } from '../../../src/ui/components/input/PromptInput.js';
import { initialPromptState } from '../../../src/ui/components/input/prompt-state.js';
import { ToolCall, toolCallRows } from '../../../src/ui/components/transcript/ToolCall.js';
import { TaskBlock } from '../../../src/ui/components/tree/TaskBlock.js';
import { diffStrings } from '../../../src/ui/render/diff-lines.js';
import { Markdown } from '../../../src/ui/render/markdown.js';
import { fitLive, markdownRows, taskBlockRows, wrappedRows } from '../../../src/ui/screens/live-layout.js';
import { reduce, type ToolCallItem } from '../../../src/ui/state/index.js';
import { A, B, ROOT, ev, run, treeEvents } from '../state/fixtures.js';

const rowsOf = (node: ReactElement, columns = 80): number => {
  const out = renderToString(node, { columns });
  return out === '' ? 0 : out.split('\n').length;
};

/** A small deterministic generator, so a failure names a reproducible case. */
function random(seed: number) {
  return () => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return seed / 0x7fffffff;
  };
}

const call = (over: Partial<ToolCallItem>): ToolCallItem => ({
  kind: 'tool',
  id: 'c1',
  callId: 'c1',
  tool: 'bash',
  input: {},
  isError: false,
  startedAt: 0,
  done: false,
  ...over,
});

describe('row estimates match what Ink draws', () => {
  it('wraps a line exactly as Ink does, long words and runs of spaces included', () => {
    const rnd = random(7);
    for (let k = 0; k < 400; k++) {
      const words = Array.from({ length: Math.floor(rnd() * 30) }, () => 'x'.repeat(Math.floor(rnd() * (rnd() < 0.1 ? 50 : 9))));
      const line = words.join(rnd() < 0.2 ? '  ' : ' ');
      const width = 5 + Math.floor(rnd() * 40);
      const drawn = Math.max(
        1,
        rowsOf(
          <Box width={width}>
            <Text>{line}</Text>
          </Box>,
        ),
      );
      expect(wrappedRows(line, width), `${JSON.stringify(line)} at ${width}`).toBe(drawn);
    }
  });

  it('counts markdown blocks, lists, code and tables', () => {
    const samples = [
      '## Done\n\n- **Routes**: `src/server.ts` defines x.\n- b\n\n```ts\nconst a = 1;\n```\n\nNext step would be defining `rateLimit` (e.g. 5 attempts per minute per IP) and a test in `tests/auth.test.js`.',
      '# H\nPara right after\n> quote\n\n1. a\n2. b\n\n| a | b |\n|---|---|\n| 1 | 2 |',
      'The sub-agents agree: login lives in `src/server.ts` and has no throttling. Adding a limiter there.',
    ];
    for (const text of samples) expect(markdownRows(text, 80), text).toBe(rowsOf(<Markdown text={text} width={80} />));
  });

  it('counts tool calls: diffs (shown or left to the dialog), bash tails, errors', () => {
    const edit = call({ tool: 'edit', input: { file_path: 'a.ts', old_string: 'a\nb\nc', new_string: 'a\nB\nc\nd' } });
    const cases: Array<[ToolCallItem, boolean]> = [
      [edit, false],
      [edit, true],
      [call({ tool: 'edit', input: { file_path: 'a.ts', old_string: 'x', new_string: Array.from({ length: 20 }, (_, i) => `l${i}`).join('\n') } }), false],
      [call({ tool: 'bash', input: { command: 'ls' }, done: true, output: 'a\nb\nc\nd\ne' }), false],
      [call({ tool: 'read', done: true, isError: true, output: 'no such file\nat x\nat y' }), false],
    ];
    for (const [c, hideDiff] of cases) expect(toolCallRows(c, { hideDiff })).toBe(rowsOf(<ToolCall call={c} width={80} hideDiff={hideDiff} />));
    expect(toolCallRows(edit, { hideDiff: true })).toBe(1);
  });

  it('counts sub-agent blocks with nested sub-agents for each number of listed tools', () => {
    const state = run(treeEvents());
    const tasks = (state.items[ROOT] ?? []).filter((i): i is ToolCallItem => i.kind === 'tool' && i.tool === 'task');
    expect(tasks.length).toBe(2);
    for (const t of tasks) {
      for (const latest of [0, 1, 2, 3]) {
        expect(taskBlockRows(state, t, latest), `${t.callId} with ${latest}`).toBe(rowsOf(<TaskBlock state={state} call={t} now={0} width={80} latestTools={latest} />));
      }
    }
  });

  it('counts finished sub-agent blocks, collapsed and expanded with their report and tool log', () => {
    let state = run(treeEvents());
    const report = Array.from({ length: 9 }, (_, i) => `finding ${i} `.repeat(i === 2 ? 30 : 1)).join('\n\n');
    state = reduce(state, ev('session.status', A, [ROOT, A], 'explore', { status: 'completed' }, 50));
    state = reduce(state, ev('tool.completed', ROOT, [ROOT], 'build', { call_id: 'callA', tool: 'task', output: `<task id="${A}" state="completed"><task_result>${report}</task_result></task>`, is_error: false, metadata: { session_id: A, agent: 'explore', state: 'completed', report } }, 51));
    state = reduce(state, ev('session.status', B, [ROOT, B], 'general', { status: 'failed', reason: 'timed out' }, 52));
    state = reduce(state, ev('tool.completed', ROOT, [ROOT], 'build', { call_id: 'callB', tool: 'task', output: `<task id="${B}" state="failed"><task_result>one\ntwo</task_result></task>`, is_error: true, metadata: { session_id: B, agent: 'general', state: 'failed', report: 'one\ntwo' } }, 53));
    const tasks = (state.items[ROOT] ?? []).filter((i): i is ToolCallItem => i.kind === 'tool' && i.tool === 'task');
    for (const t of tasks) {
      for (const expanded of [false, true]) {
        const rows = rowsOf(<TaskBlock state={state} call={t} now={0} width={80} latestTools={3} expanded={expanded} />);
        expect(taskBlockRows(state, t, 3, 0, 2, 3, expanded), `${t.callId} expanded=${expanded}`).toBe(rows);
      }
    }
    // The report adds rows when expanded: five lines and the note on the rest, plus A's tool log.
    expect(taskBlockRows(state, tasks[0]!, 3, 0, 2, 3, true)).toBeGreaterThan(1 + 6);
  });

  it('counts the approval dialog around its subject, and the question dialog', () => {
    const subject = 'npm test -- --run --reporter verbose '.repeat(5).trim();
    const waiting = ['question from build › explore (Find API routes)'];
    const subjectRows = subjectTextRows('bash', subject, 76);
    expect(subjectRows).toBeGreaterThan(1);
    const approval = <ApprovalDialog asker="build" tool="bash" subject={subject} position={1} total={1} onReply={() => {}} waiting={waiting} maxSubjectLines={subjectRows} />;
    expect(rowsOf(approval)).toBe(approvalChromeRows(waiting.length) + subjectRows);

    const q = { question: 'Login exists twice. '.repeat(8).trim(), options: ['/v2/login only', 'Both', '/v1/login only'], waiting };
    const { chromeRows, questionRows } = askUserRows(q, 80);
    expect(rowsOf(<AskUserDialog asker="build › explore" position={1} total={1} onAnswer={() => {}} onDecline={() => {}} {...q} />)).toBe(chromeRows + questionRows);
    // Cut to fit: the dialog shrinks by exactly the rows taken from the question.
    expect(rowsOf(<AskUserDialog asker="build › explore" position={1} total={1} onAnswer={() => {}} onDecline={() => {}} maxQuestionRows={2} {...q} />)).toBe(chromeRows + 2);
  });

  it('counts the prompt: placeholder, long and multi-line text', () => {
    const at = (text: string) => ({ ...initialPromptState, buffer: { text, cursor: text.length } });
    const o = { width: 80, prompt: 'build', placeholder: 'Ask anything · / for commands · @ to mention' };
    expect(rowsOf(<PromptInput onSubmit={() => {}} prompt="build" placeholder={o.placeholder} />)).toBe(promptRows(at(''), undefined, o));
    expect(promptRows(at('first\nsecond\nthird'), undefined, o)).toBe(2 + 3);
    // 200 columns of text in a 76-column box.
    expect(promptRows(at('long '.repeat(40)), undefined, o)).toBe(2 + 3);
    expect(promptRows(at(''), undefined, { ...o, disabled: true, disabledHint: 'read-only' })).toBe(3);
  });
});

describe('fitLive', () => {
  const flat = (rows: number) => () => rows;

  it('keeps the whole live region below the terminal height', () => {
    // 24 rows: 4 fixed (prompt, status), a dialog of 11 + a 12-row diff, 3 transcript rows.
    const layout = fitLive({ rows: 24, fixedRows: 4, dialog: { chromeRows: 11, subjectRows: 12 }, transcriptRows: flat(3) });
    expect(layout.transcriptClip).toBeUndefined();
    expect(4 + 11 + layout.subjectRows + 3).toBe(23);
    expect(layout.subjectRows).toBe(5);
  });

  it('lists fewer tools under sub-agent blocks before taking rows from the dialog subject', () => {
    // Three blocks, each 1 row plus its listed tools.
    const blocks = (latest: number) => 3 * (1 + latest);
    const layout = fitLive({ rows: 24, fixedRows: 4, dialog: { chromeRows: 11, subjectRows: 8 }, transcriptRows: blocks });
    expect(layout.latestTools).toBe(0);
    expect(layout.subjectRows).toBe(5);
    const roomy = fitLive({ rows: 50, fixedRows: 4, dialog: { chromeRows: 11, subjectRows: 8 }, transcriptRows: blocks });
    expect(roomy).toEqual({ latestTools: 3, subjectRows: 8 });
  });

  it('clips a live transcript that cannot fit, leaving the dialog a few subject rows', () => {
    const layout = fitLive({ rows: 24, fixedRows: 4, dialog: { chromeRows: 11, subjectRows: 20 }, transcriptRows: flat(30) });
    expect(layout.subjectRows).toBe(3);
    expect(layout.transcriptClip).toBe(5);
    const noDialog = fitLive({ rows: 24, fixedRows: 5, transcriptRows: flat(40) });
    expect(noDialog.transcriptClip).toBe(18);
  });
});

describe('fitDiffLines', () => {
  const lines = diffStrings(Array.from({ length: 20 }, (_, i) => `line ${i}`).join('\n'), Array.from({ length: 20 }, (_, i) => (i === 10 ? 'LINE TEN' : `line ${i}`)).join('\n'));

  it('drops unchanged context before any changed line', () => {
    expect(diffRows(lines)).toBe(8);
    const fitted = fitDiffLines(lines, 4);
    expect(diffRows(fitted)).toBeLessThanOrEqual(4);
    expect(fitted.filter((l) => l.kind === 'add' || l.kind === 'remove').map((l) => l.text)).toEqual(['line 10', 'LINE TEN']);
    expect(diffRows(fitDiffLines(lines, 2))).toBe(2);
    expect(fitDiffLines(lines, 8)).toEqual(lines);
  });
});
