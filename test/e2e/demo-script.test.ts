// The demo's script on its own (the terminal run is tui.test.ts): prompts off the script get
// a labelled scripted reply, a denial with a note counts as a denial, and the main agent
// follows Ctrl+B: it waits for sub-agents sent to the background before it edits.
import { describe, expect, it } from 'vitest';
import { DEMO_PROMPT, FOLLOW_UP_LABEL, demoReply } from '../../src/demo/script.js';

type Message = { role: string; content: unknown };
type Reply = ReturnType<typeof demoReply>;

const texts = (reply: Reply) => reply.content.map((b) => (b.type === 'text' ? b.text : '')).join('');
const toolUses = (reply: Reply) => reply.content.flatMap((b) => (b.type === 'tool_use' ? [b] : []));
const asAssistant = (reply: Reply): Message => ({ role: 'assistant', content: reply.content });
const results = (...parts: Array<{ id: string; content: string; is_error?: boolean }>): Message => ({
  role: 'user',
  content: parts.map((p) => ({ type: 'tool_result', tool_use_id: p.id, content: p.content, ...(p.is_error ? { is_error: true } : {}) })),
});
const userText = (text: string): Message => ({ role: 'user', content: [{ type: 'text', text }] });

/** The main conversation up to the fan-out's results, with `background` task descriptions sent to the background. */
function afterFanOut(background: readonly string[] = []): { messages: Message[]; calls: ReturnType<typeof toolUses> } {
  const messages: Message[] = [{ role: 'user', content: DEMO_PROMPT }];
  const first = demoReply({ messages });
  const calls = toolUses(first);
  messages.push(asAssistant(first));
  messages.push(
    results(
      ...calls.map((c) => {
        const description = (c.input as { description: string }).description;
        return { id: c.id, content: background.includes(description) ? '<task id="ses_x" state="running">The user moved this task to the background.</task>' : `<task id="ses_x" state="completed">${description}: done. Both.</task>` };
      }),
    ),
  );
  return { messages, calls };
}

describe('the demo script', () => {
  it('answers a prompt off the script with a labelled reply naming it', () => {
    const first = demoReply({ messages: [{ role: 'user', content: 'What is this?' }] });
    expect(texts(first)).toContain(`${FOLLOW_UP_LABEL} You asked: “What is this?”`);
    // After the scripted part, in the same conversation.
    const { messages } = afterFanOut();
    const edit = demoReply({ messages });
    messages.push(asAssistant(edit), results(...toolUses(edit).map((c) => ({ id: c.id, content: 'ok' }))));
    messages.push(asAssistant(demoReply({ messages })), userText('Can you also add a test?'));
    expect(texts(demoReply({ messages }))).toContain('You asked: “Can you also add a test?”');
  });

  it('treats an edit denied with a note as not applied', () => {
    const afterEdit = (result: { content: string; is_error?: boolean }) => {
      const { messages } = afterFanOut();
      const edit = demoReply({ messages });
      const [read, write] = toolUses(edit);
      expect(write?.name).toBe('edit');
      // The parent reads the file, then edits it, in one message.
      messages.push(asAssistant(edit), results({ id: read!.id, content: '1\timport …' }, { id: write!.id, ...result }));
      return texts(demoReply({ messages }));
    };
    expect(afterEdit({ content: 'Edited src/server.ts.' })).toContain('## Done');
    expect(afterEdit({ content: 'please leave v1 alone', is_error: true })).toContain('left `src/server.ts` unchanged');
  });

  it('waits for sub-agents sent to the background, then edits with their findings', () => {
    const { messages } = afterFanOut(['Find API routes', 'Check the test setup']);
    const waiting = demoReply({ messages });
    expect(toolUses(waiting)).toEqual([]);
    expect(texts(waiting)).toContain('“Find API routes” and “Check the test setup” are still working in the background');
    messages.push(asAssistant(waiting), userText('Background task "Check the test setup" (general) has finished:\n<task id="ses_t" state="completed">one auth test</task>'));

    const still = demoReply({ messages });
    expect(toolUses(still)).toEqual([]);
    expect(texts(still)).toContain('“Find API routes” is still working');
    messages.push(asAssistant(still), userText('Background task "Find API routes" (explore) has finished:\n<task id="ses_r" state="completed">Both</task>'));

    const edit = demoReply({ messages });
    expect(toolUses(edit).map((c) => c.name)).toEqual(['read', 'edit']);
    // The user's answer (in the routes task's late result) decides the edit.
    expect(JSON.stringify(toolUses(edit)[1]!.input)).toContain("app.post('/v1/login', rateLimit, login);");
  });
});
