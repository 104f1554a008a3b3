// The fan-out benches' scenario (bench/fanout.bench.ts, bench/fanout-phases.bench.ts,
// bench/peers.bench.ts): a fake model server on which the parent's prompt `FANOUT_PROMPT`
// answers with `FANOUT_CHILDREN` sub-agent calls, each child's reply takes 300 ms, and the
// parent's second turn (the one that carries the children's results) ends the run; any other
// request on the parent's prompt (a session title) is answered at once. One
// definition, so every bench measures the same thing, whichever program is pointed at it:
// the sub-agent tool is picked from the tools the parent's request offers (ours and
// OpenCode's `task` with `general`, Claude Code's `Agent`, formerly `Task`, with
// `general-purpose`), and a conversation is keyed by the last text block of its first
// message, because Claude Code puts a `<system-reminder>` block before the user's text.
import { reply, text, startFakeServer, type RecordedRequest } from '../test/support/fake-anthropic.js';

export const FANOUT_CHILDREN = 10;
export const FANOUT_PROMPT = 'fan out to ten sub-agents';
/** Every child's prompt starts with this, so a request can be told apart as a child's. */
const CHILD_PROMPT_PREFIX = 'child ';

/**
 * Each known sub-agent tool, the general-purpose agent type its program names, and what else
 * the call says: Claude Code's `Agent` is told to run in the foreground, as the parent waiting
 * for its children is the scenario (later versions start sub-agents in the background unless told).
 */
const SUBAGENT_TOOLS: ReadonlyArray<{ tool: string; subagentType: string; extra?: Record<string, unknown> }> = [
  { tool: 'task', subagentType: 'general' },
  { tool: 'Agent', subagentType: 'general-purpose', extra: { run_in_background: false } },
  { tool: 'Task', subagentType: 'general-purpose' },
];

type Part = { type: string; text?: string };

function partsOf(content: unknown): Part[] {
  if (typeof content === 'string') return [{ type: 'text', text: content }];
  return Array.isArray(content) ? (content as Part[]) : [];
}

/** The prompt a request's conversation began with: the last text block of its first message. */
export function promptOf(req: RecordedRequest): string {
  const texts = partsOf(req.body.messages[0]?.content).filter((p) => p.type === 'text');
  return texts[texts.length - 1]?.text ?? '';
}

/** Whether `req` is one of the children's requests (as opposed to the parent's, or a program's side request). */
export function isChildRequest(req: RecordedRequest): boolean {
  return promptOf(req).startsWith(CHILD_PROMPT_PREFIX);
}

/** Whether `req` is the parent's second turn: some message already carries tool results. */
function carriesToolResults(req: RecordedRequest): boolean {
  return req.body.messages.some((m) => partsOf(m.content).some((p) => p.type === 'tool_result'));
}

export async function startFanOutServer(): Promise<Awaited<ReturnType<typeof startFakeServer>>> {
  const server = await startFakeServer();
  server.setHandler((req) => {
    const prompt = promptOf(req);
    if (prompt === FANOUT_PROMPT) {
      // A request on the prompt that offers no tools is the program's own (OpenCode titles
      // the session so); answered at once, like the parent's turns.
      if (!req.body.tools?.length) return text('Ten sub-agents report');
      if (carriesToolResults(req)) return text('All ten reports are in.');
      const offered = new Set((req.body.tools ?? []).map((t) => t.name));
      const subagent = SUBAGENT_TOOLS.find((s) => offered.has(s.tool));
      if (!subagent) {
        const known = SUBAGENT_TOOLS.map((s) => s.tool).join(', ');
        return { type: 'http_error', status: 400, errorType: 'invalid_request_error', message: `the fan-out prompt's request offers none of the sub-agent tools ${known}` };
      }
      return reply(
        ...Array.from({ length: FANOUT_CHILDREN }, (_, i) => ({
          type: 'tool_use' as const,
          name: subagent.tool,
          input: { description: `Part ${i}`, prompt: `${CHILD_PROMPT_PREFIX}${i}: report on part ${i}`, subagent_type: subagent.subagentType, ...subagent.extra },
        })),
      );
    }
    return { ...text(`report for ${prompt}`), delayMs: 300 };
  });
  return server;
}
