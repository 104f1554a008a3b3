// /undo, /redo and /rewind over ACP (DESIGN §16, §18): the built binary driven by the SDK's
// client side, against the fake Messages server, with real files and the real shadow
// repository. The commands are announced with `available_commands_update`, answered as the
// agent's message without a model call, and go through the same checkpoint API as the TUI.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { SessionNotification } from '@agentclientprotocol/sdk';
import { describe, expect, it } from 'vitest';
import { type CliProject } from '../support/cli.js';
import { text, toolUse, type RecordedRequest, type ScriptedReply } from '../support/fake-anthropic.js';
import { editorsPerTest, initialize, type Editor } from './support.js';

/** The agent's message text sent for a session since update number `from`. */
function agentText(e: Editor, sessionId: string, from = 0): string {
  return e.updates
    .slice(from)
    .filter((n) => n.sessionId === sessionId)
    .map((n) => (n.update.sessionUpdate === 'agent_message_chunk' && n.update.content.type === 'text' ? n.update.content.text : ''))
    .join('');
}

const isCommandsUpdate = (sessionId: string) => (n: SessionNotification) => n.sessionId === sessionId && n.update.sessionUpdate === 'available_commands_update';

const conversation = (req: RecordedRequest) => JSON.stringify(req.body.messages);

describe('opencode-ink acp: undo, redo and rewind', () => {
  let p!: CliProject;
  const editors = editorsPerTest((project) => (p = project));
  const open = async () => {
    const e = editors.start();
    await initialize(e);
    return e;
  };
  /** Sends a prompt and answers the reply the agent sent for it. */
  const say = async (e: Editor, sessionId: string, prompt: string) => {
    const from = e.updates.length;
    const res = await e.conn.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: prompt }] });
    return { stopReason: res.stopReason, reply: agentText(e, sessionId, from) };
  };

  it('announces /undo, /redo, /rewind and the custom commands after session/new and session/load', async () => {
    mkdirSync(join(p.project, '.opencode', 'commands'), { recursive: true });
    writeFileSync(join(p.project, '.opencode', 'commands', 'review.md'), '---\ndescription: Review a file\nargument-hint: <file>\n---\nReview $1\n');
    const e = await open();
    const { sessionId } = await e.conn.agent.request('session/new', { cwd: p.project, mcpServers: [] });
    const announced = await e.waitForUpdate(isCommandsUpdate(sessionId));
    if (announced.update.sessionUpdate !== 'available_commands_update') throw new Error('not a commands update');
    const commands = announced.update.availableCommands;
    expect(commands.slice(0, 3).map((c) => c.name)).toEqual(['undo', 'redo', 'rewind']);
    expect(commands.find((c) => c.name === 'rewind')).toMatchObject({ description: expect.stringMatching(/code, conversation or both/), input: { hint: 'N code|conversation|both' } });
    expect(commands.find((c) => c.name === 'undo')?.description).toMatch(/before the last prompt/);
    expect(commands.find((c) => c.name === 'review')).toEqual({ name: 'review', description: 'Review a file', input: { hint: '<file>' } });
    // Each name once.
    expect(new Set(commands.map((c) => c.name)).size).toBe(commands.length);
    e.child.stdin!.end();
    await e.exited;

    const second = await open();
    await second.conn.agent.request('session/load', { sessionId, cwd: p.project, mcpServers: [] });
    const again = await second.waitForUpdate(isCommandsUpdate(sessionId));
    expect(again.update).toEqual(announced.update);
  });

  it('undoes a turn that wrote a file, redoes it, and leaves the undone turn out of the next request', async () => {
    p.server.setHandler(scripted([toolUse('write', { file_path: 'made.txt', content: 'made\n' }), text('Wrote it.'), text('Nothing else to do.')]));
    const e = await open();
    const { sessionId } = await e.conn.agent.request('session/new', { cwd: p.project, mcpServers: [] });
    expect((await say(e, sessionId, 'make the file')).stopReason).toBe('end_turn');
    expect(readFileSync(join(p.project, 'made.txt'), 'utf8')).toBe('made\n');
    const asked = p.server.requests.length;

    const undo = await say(e, sessionId, '/undo');
    expect(undo.stopReason).toBe('end_turn');
    expect(undo.reply).toMatch(/^Undid "make the file": 1 file restored \(made\.txt\)\./);
    expect(existsSync(join(p.project, 'made.txt'))).toBe(false);

    const redo = await say(e, sessionId, '/redo');
    expect(redo.reply).toMatch(/^Redid "make the file": 1 file restored \(made\.txt\)\./);
    expect(readFileSync(join(p.project, 'made.txt'), 'utf8')).toBe('made\n');

    expect((await say(e, sessionId, '/undo')).reply).toMatch(/^Undid "make the file"/);
    expect(existsSync(join(p.project, 'made.txt'))).toBe(false);
    // The commands never reached the model.
    expect(p.server.requests).toHaveLength(asked);
    // Nothing left to undo: one sentence, still the end of a turn.
    const nothing = await say(e, sessionId, '/undo');
    expect(nothing).toEqual({ stopReason: 'end_turn', reply: expect.stringMatching(/^Nothing to undo in session \S+: no prompt left to step back over\.$/) });
    expect((await say(e, sessionId, '/undo now')).reply).toBe('/undo takes no arguments: send /undo alone.');
    // An unknown command is refused by the core as before, without a model call.
    await expect(e.conn.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: '/frobnicate' }] })).rejects.toThrow(/frobnicate/);
    expect(p.server.requests).toHaveLength(asked);

    expect((await say(e, sessionId, 'what now?')).stopReason).toBe('end_turn');
    const next = conversation(p.server.requests.at(-1)!);
    expect(next).toContain('what now?');
    expect(next).not.toContain('make the file');
    expect(next).not.toContain('made.txt');
    expect(next).not.toContain('Wrote it.');
  });

  it('lists the prompts on /rewind, refuses bad input in one sentence, rewinds the code only on /rewind 1 code and the conversation only on /rewind 2 conversation', async () => {
    p.server.setHandler(
      scripted([
        toolUse('write', { file_path: 'one.txt', content: 'one\n' }),
        text('First done.'),
        toolUse('write', { file_path: 'two.txt', content: 'two\n' }),
        text('Second done.'),
        text('Still here.'),
      ]),
    );
    const e = await open();
    const { sessionId } = await e.conn.agent.request('session/new', { cwd: p.project, mcpServers: [] });
    await say(e, sessionId, 'write one');
    await say(e, sessionId, 'write two\nwith a second line');
    const asked = p.server.requests.length;

    const list = await say(e, sessionId, '/rewind');
    expect(list.stopReason).toBe('end_turn');
    expect(list.reply).toContain('\n1. write one\n2. write two\n');
    expect(list.reply).toMatch(/\/rewind N/);

    for (const [input, answer] of [
      ['/rewind 99', 'There is no prompt 99: this session has 2 prompts to rewind to (send /rewind to list them).'],
      ['/rewind x', '"x" is not a prompt number: send /rewind to list the prompts, then /rewind N [code|conversation|both].'],
      ['/rewind 2 everything', '"everything" is not something /rewind restores: use code, conversation or both.'],
      ['/rewind 0', 'There is no prompt 0: this session has 2 prompts to rewind to (send /rewind to list them).'],
    ] as const) {
      expect(await say(e, sessionId, input)).toEqual({ stopReason: 'end_turn', reply: answer });
    }
    expect(readFileSync(join(p.project, 'one.txt'), 'utf8')).toBe('one\n');
    expect(readFileSync(join(p.project, 'two.txt'), 'utf8')).toBe('two\n');
    expect((await say(e, sessionId, '/rewind')).reply).toBe(list.reply);

    const code = await say(e, sessionId, '/rewind 1 code');
    expect(code.reply).toMatch(/^Rewound the code to before prompt 1 "write one": 2 files restored \((one\.txt, two\.txt|two\.txt, one\.txt)\)\. The conversation is unchanged\.$/);
    expect(existsSync(join(p.project, 'one.txt'))).toBe(false);
    expect(existsSync(join(p.project, 'two.txt'))).toBe(false);
    // The conversation kept both turns.
    expect((await say(e, sessionId, '/rewind')).reply).toBe(list.reply);

    const talk = await say(e, sessionId, '/rewind 2 conversation');
    expect(talk.reply).toBe('Rewound the conversation to before prompt 2 "write two": it and everything after it are left out from now on. The files were left as they are.');
    expect((await say(e, sessionId, '/rewind')).reply).toContain('\n1. write one\n\nSend');
    expect(p.server.requests).toHaveLength(asked);

    await say(e, sessionId, 'and now?');
    const next = conversation(p.server.requests.at(-1)!);
    expect(next).toContain('write one');
    expect(next).toContain('First done.');
    expect(next).not.toContain('write two');
    expect(next).not.toContain('Second done.');
  });

  it('refuses /undo when the user changed the same lines since, naming the file and changing nothing', async () => {
    writeFileSync(join(p.project, 'notes.txt'), 'old\n');
    p.server.setHandler(scripted([toolUse('bash', { command: 'echo new > notes.txt' }), text('Changed the notes.')]));
    const e = await open();
    const { sessionId } = await e.conn.agent.request('session/new', { cwd: p.project, mcpServers: [] });
    await say(e, sessionId, 'change the notes');
    expect(readFileSync(join(p.project, 'notes.txt'), 'utf8')).toBe('new\n');
    writeFileSync(join(p.project, 'notes.txt'), 'mine\n');

    const refused = await say(e, sessionId, '/undo');
    expect(refused.stopReason).toBe('end_turn');
    expect(refused.reply).toMatch(/^Nothing was restored: notes\.txt changed since the agent changed it, and the changes overlap\./);
    expect(refused.reply.split('\n')).toHaveLength(1);
    expect(readFileSync(join(p.project, 'notes.txt'), 'utf8')).toBe('mine\n');
    // The turn is still in the conversation: /rewind lists it.
    expect((await say(e, sessionId, '/rewind')).reply).toContain('1. change the notes');
  });

  it('refuses /undo sent while a turn is running, in one sentence, and the turn goes on', async () => {
    let release: () => void = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    p.server.setHandler(async () => {
      await held;
      return text('Slow answer.');
    });
    const e = await open();
    const { sessionId } = await e.conn.agent.request('session/new', { cwd: p.project, mcpServers: [] });
    const turn = say(e, sessionId, 'take your time');
    await p.server.waitForRequests(1);
    await expect(e.conn.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: '/undo' }] })).rejects.toThrow(
      'A turn is under way in this session: wait for it to end (or cancel it) before /undo.',
    );
    release();
    expect(await turn).toEqual({ stopReason: 'end_turn', reply: 'Slow answer.' });
    expect((await say(e, sessionId, '/rewind')).reply).toContain('1. take your time');
  });
});

/** Replies in order, whatever asks; then says the script is over. */
function scripted(replies: ScriptedReply[]) {
  return () => replies.shift() ?? text('(script exhausted)');
}
