// Sub-agents changing the same file at once lose nothing (DESIGN §17): a real engine and real
// files, the model played by the fake server. Ten children edit one file in the same moment
// and every edit lands (a child whose view went stale is told to read again, and does); a
// child that overwrites a file it never read, or writes back a view another child has since
// changed, is refused; a file the user attached with `@file` counts as read.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { firstUserText, requestsOf, scriptConversations } from '../support/conversations.js';
import { reply, text, toolResults, type RecordedRequest, type ScriptedReply } from '../support/fake-anthropic.js';
import { startHarness, type Harness } from '../support/harness.js';

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const WORDS = ['alpha', 'bravo', 'charlie', 'delta', 'echo', 'foxtrot', 'golf', 'hotel', 'india', 'juliet'];
const SHARED = `${WORDS.join(' ')}\n`;
// The last of ten racing children may be refused nine times (a read and an edit each): room
// for that under its cap on model requests, so it ends `completed`, not `limited`.
const ALLOW_EDITS = { permission: { edit: 'allow' }, subagents: { max_concurrency: 10, max_turns: 30 } };

let ids = 0;
const call = (name: string, input: Record<string, unknown>, kind: string) => ({ type: 'tool_use' as const, name, input, id: `toolu_${kind}_${++ids}` });
const spawn = (prompt: string) => call('task', { description: prompt, prompt, subagent_type: 'general' }, 'task');

/** The newest tool result of a request, with the kind of call it answers (read, edit, write…). */
function lastResult(req: RecordedRequest): { kind: string; text: string; isError: boolean } | undefined {
  const result = toolResults(req).at(-1);
  if (!result) return undefined;
  return {
    kind: result.tool_use_id.split('_')[1] ?? '',
    text: typeof result.content === 'string' ? result.content : JSON.stringify(result.content),
    isError: result.is_error === true,
  };
}

/** A gate a scripted reply can wait on until another conversation reaches some point. */
function gate(): { open: () => void; opened: Promise<void> } {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { open, opened };
}

describe('sub-agents writing the same file', () => {
  it('ten children in one message, each reading then editing its own word, end with all ten edits', async () => {
    h = await startHarness({ config: ALLOW_EDITS, files: { 'shared.txt': SHARED } });
    const prompts = WORDS.map((w) => `capitalise ${w} in shared.txt`);
    // Every child's first edit is held until all ten have read the file, so the ten edits
    // really race (without the guard, most of them are lost).
    const readByAll = gate();
    const firstReads = new Set<string>();
    const refusals: string[] = [];
    h.server.setHandler(async (req): Promise<ScriptedReply> => {
      const prompt = firstUserText(req);
      if (prompt === 'fan out') {
        return req.body.messages.length === 1 ? reply(...prompts.map(spawn)) : text('all ten done');
      }
      const word = WORDS[prompts.indexOf(prompt)]!;
      const last = lastResult(req);
      if (!last) return reply(call('read', { file_path: 'shared.txt' }, 'read'));
      if (last.kind === 'read') {
        if (!firstReads.has(prompt)) {
          firstReads.add(prompt);
          if (firstReads.size === prompts.length) readByAll.open();
          await readByAll.opened;
        }
        return reply(call('edit', { file_path: 'shared.txt', old_string: word, new_string: word.toUpperCase() }, 'edit'));
      }
      if (last.isError) {
        refusals.push(last.text);
        return reply(call('read', { file_path: 'shared.txt' }, 'read'));
      }
      return text(`${word} done`);
    });
    const root = h.engine.createSession();
    const outcome = await h.engine.prompt(root.id, 'fan out');
    expect(outcome).toMatchObject({ status: 'completed', text: 'all ten done' });
    expect(readFileSync(join(h.projectDir, 'shared.txt'), 'utf8')).toBe(`${WORDS.map((w) => w.toUpperCase()).join(' ')}\n`);
    expect(h.store.children(root.id).map((c) => c.status)).toEqual(Array(10).fill('completed'));
    // Edits from a view another child had changed were refused, never applied blindly.
    expect(refusals.length).toBeGreaterThan(0);
    for (const refusal of refusals) expect(refusal).toMatch(/^shared\.txt has changed since you last read it .*: read it again/);
  }, 60_000);

  it('refuses a child that overwrites a file it never read, and one that writes back a view another child changed', async () => {
    h = await startHarness({ config: ALLOW_EDITS, files: { 'shared.txt': 'alpha|beta|gamma\n', 'config.json': '{"port": 3000}\n' } });
    const writerRead = gate();
    const edited = gate();
    scriptConversations(h.server, {
      'fan out': [reply(spawn('edit alpha'), spawn('append a line'), spawn('reset the config')), text('parent done')],
      'edit alpha': [
        reply(call('read', { file_path: 'shared.txt' }, 'read')),
        async () => {
          // Both children have read the file before either changes it.
          await writerRead.opened;
          return reply(call('edit', { file_path: 'shared.txt', old_string: 'alpha', new_string: 'ALPHA' }, 'edit'));
        },
        () => {
          edited.open();
          return text('edited alpha');
        },
      ],
      'append a line': [
        reply(call('read', { file_path: 'shared.txt' }, 'read')),
        async () => {
          writerRead.open();
          await edited.opened;
          // Written from the view read before the other child's edit.
          return reply(call('write', { file_path: 'shared.txt', content: 'alpha|beta|gamma|B-LINE\n' }, 'write'));
        },
        text('could not write'),
      ],
      'reset the config': [reply(call('write', { file_path: 'config.json', content: '{}\n' }, 'write')), text('could not reset')],
    });
    const root = h.engine.createSession();
    expect((await h.engine.prompt(root.id, 'fan out')).status).toBe('completed');

    expect(readFileSync(join(h.projectDir, 'shared.txt'), 'utf8')).toBe('ALPHA|beta|gamma\n');
    expect(readFileSync(join(h.projectDir, 'config.json'), 'utf8')).toBe('{"port": 3000}\n');
    const stale = lastResult(requestsOf(h.server, 'append a line').at(-1)!)!;
    expect(stale).toMatchObject({ kind: 'write', isError: true });
    expect(stale.text).toMatch(/^shared\.txt has changed since you last read it .*: read it again/);
    const blind = lastResult(requestsOf(h.server, 'reset the config').at(-1)!)!;
    expect(blind).toEqual({ kind: 'write', isError: true, text: 'config.json has not been read in this session yet: read it first with the read tool, then make the change.' });
  }, 60_000);

  it('counts a file attached with @file as read by the session it was given to', async () => {
    h = await startHarness({ config: ALLOW_EDITS, files: { 'notes.txt': 'todo: ship\n', 'other.txt': 'untouched\n' } });
    h.server.enqueue(
      reply(
        call('edit', { file_path: 'notes.txt', old_string: 'todo', new_string: 'done' }, 'edit'),
        call('edit', { file_path: 'other.txt', old_string: 'untouched', new_string: 'touched' }, 'edit'),
      ),
      text('tidied'),
    );
    const root = h.engine.createSession();
    expect((await h.engine.prompt(root.id, 'tidy @notes.txt')).status).toBe('completed');
    expect(firstUserText(h.server.requests[0]!)).toMatch(/<file path="notes\.txt">\n\s+1\ttodo: ship/);
    expect(readFileSync(join(h.projectDir, 'notes.txt'), 'utf8')).toBe('done: ship\n');
    expect(readFileSync(join(h.projectDir, 'other.txt'), 'utf8')).toBe('untouched\n');
    const results = toolResults(h.server.requests[1]!);
    expect(results.map((r) => r.is_error === true)).toEqual([false, true]);
  }, 30_000);
});
