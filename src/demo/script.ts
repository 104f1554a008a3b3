// The scripted conversation behind `--demo`: a main agent that fans out to three
// sub-agents, one of which asks the user a question and one of which needs an approval,
// then edits a file (a second approval, shown as a diff). Replies are chosen by
// conversation (the first user message) and, for the sub-agents, step (assistant messages
// so far); the main agent's by what its conversation holds (which sub-agents have
// reported, whether it has edited), so it follows Ctrl+B. The script is stateless and
// survives retries. Any prompt off the script gets a short,
// clearly labelled scripted reply.
import type { DemoBlock, DemoReply } from './sse.js';

export const DEMO_PROMPT = 'Add rate limiting to the login route. Map the code first.';

/** The small project the demo runs in (a temporary folder), so its tools have real files. */
export const DEMO_FILES: Record<string, string> = {
  'package.json': `${JSON.stringify({ name: 'demo-api', version: '1.0.0', type: 'module', scripts: { test: 'node --test tests/' } }, null, 2)}\n`,
  'src/server.ts': [
    "import { createApp } from './app.js';",
    "import { authenticate } from './auth/middleware.js';",
    "import { login, logout } from './routes/session.js';",
    "import { listUsers } from './routes/users.js';",
    '',
    'const app = createApp();',
    '',
    "app.post('/v1/login', login);",
    "app.post('/v2/login', login);",
    "app.post('/v2/logout', authenticate, logout);",
    "app.get('/v2/users', authenticate, listUsers);",
    '',
    'app.listen(3000);',
    '',
  ].join('\n'),
  'src/auth/middleware.ts': [
    "import { verifyToken } from './tokens.js';",
    '',
    '/** Rejects requests without a valid bearer token. */',
    'export function authenticate(req, res, next) {',
    "  const header = req.headers.authorization ?? '';",
    "  const token = header.startsWith('Bearer ') ? header.slice(7) : undefined;",
    '  if (!token || !verifyToken(token)) return res.status(401).end();',
    '  next();',
    '}',
    '',
  ].join('\n'),
  'src/auth/tokens.ts': "export function verifyToken(token) {\n  return token.length > 10;\n}\n",
  'src/routes/session.ts': 'export function login(req, res) {\n  res.json({ token: "..." });\n}\nexport function logout(req, res) {\n  res.end();\n}\n',
  'src/routes/users.ts': 'export function listUsers(req, res) {\n  res.json([]);\n}\n',
  'src/app.ts': 'export function createApp() {\n  return { get() {}, post() {}, listen() {} };\n}\n',
  'tests/auth.test.js': "import { test } from 'node:test';\ntest('rejects missing token', () => {});\n",
};

interface Request {
  messages: Array<{ role: string; content: unknown }>;
}

type Step = (req: Request) => DemoReply;

const ROUTES_TASK = 'List every HTTP route in src/ and say which file defines the login route.';
const AUTH_TASK = 'Find how requests are authenticated (middleware, tokens) under src/auth.';
const TESTS_TASK = 'Find how the tests are run and whether authentication has tests. List the test folder.';

let ids = 0;
const tool = (name: string, input: unknown): DemoBlock => ({ type: 'tool_use', id: `toolu_demo_${++ids}`, name, input });
const say = (text: string): DemoBlock => ({ type: 'text', text });
const reply = (...content: DemoBlock[]): DemoReply => ({ content, chunkDelayMs: 25, delayMs: 250 });

/** The text of the last tool result in the request (what a tool or the user answered). */
function lastToolResult(req: Request): string {
  const last = req.messages[req.messages.length - 1];
  if (!last || !Array.isArray(last.content)) return '';
  for (const part of [...(last.content as Array<{ type: string; content?: unknown }>)].reverse()) {
    if (part.type !== 'tool_result') continue;
    if (typeof part.content === 'string') return part.content;
    if (Array.isArray(part.content)) return (part.content as Array<{ text?: string }>).map((c) => c.text ?? '').join('');
  }
  return '';
}

/** Whether the last tool result in the request is an error (a denial among them). */
function lastToolFailed(req: Request): boolean {
  const last = req.messages[req.messages.length - 1];
  if (!last || !Array.isArray(last.content)) return false;
  return (last.content as Array<{ type: string; is_error?: boolean }>).some((p) => p.type === 'tool_result' && p.is_error === true);
}

const FAN_OUT: ReadonlyArray<{ description: string; prompt: string; subagent_type: string }> = [
  { description: 'Find API routes', prompt: ROUTES_TASK, subagent_type: 'explore' },
  { description: 'Find auth middleware', prompt: AUTH_TASK, subagent_type: 'explore' },
  { description: 'Check the test setup', prompt: TESTS_TASK, subagent_type: 'general' },
];

interface Part {
  type: string;
  id?: string;
  name?: string;
  input?: { description?: string };
  tool_use_id?: string;
  content?: unknown;
  text?: string;
}

const partsOf = (m: { content: unknown }): Part[] => (Array.isArray(m.content) ? (m.content as Part[]) : []);
const resultText = (p: Part): string =>
  typeof p.content === 'string' ? p.content : Array.isArray(p.content) ? (p.content as Array<{ text?: string }>).map((c) => c.text ?? '').join('') : '';

/**
 * The main agent's sub-agents whose results it has not read yet. A task sent to the
 * background (Ctrl+B) returns `state="running"`; its result arrives later as a message
 * starting `Background task "<description>"`, which is when the demo counts it as read.
 */
function pendingTasks(req: Request): string[] {
  const calls = new Map<string, string>();
  for (const m of req.messages) if (m.role === 'assistant') for (const p of partsOf(m)) if (p.type === 'tool_use' && p.name === 'task' && p.id) calls.set(p.id, p.input?.description ?? 'a sub-agent');
  const arrived = (description: string) =>
    req.messages.some((m) => m.role === 'user' && partsOf(m).some((p) => p.type === 'text' && (p.text ?? '').startsWith(`Background task "${description}"`)));
  const pending: string[] = [];
  for (const [id, description] of calls) {
    const result = req.messages.flatMap(partsOf).find((p) => p.type === 'tool_result' && p.tool_use_id === id);
    const inBackground = result !== undefined && resultText(result).includes('state="running"');
    if (!result || (inBackground && !arrived(description))) pending.push(description);
  }
  return pending;
}

/** Whether the main agent has already asked to edit (its last step follows the edit's result). */
function editAsked(req: Request): boolean {
  return req.messages.some((m) => m.role === 'assistant' && partsOf(m).some((p) => p.type === 'tool_use' && p.name === 'edit'));
}

/** The last message is the result of the main agent's read and edit (not a later prompt of the user's). */
function lastIsEditResult(req: Request): boolean {
  const last = req.messages[req.messages.length - 1];
  return last?.role === 'user' && partsOf(last).some((p) => p.type === 'tool_result');
}

/**
 * The main conversation follows what the user does rather than a fixed count of steps: a
 * sub-agent sent to the background (Ctrl+B) is waited for, and the edit comes only once
 * every sub-agent's findings (and the user's answer to one of them) are in.
 */
function mainReply(req: Request): DemoReply {
  if (!req.messages.some((m) => m.role === 'assistant')) {
    return reply(
      say("I'll map the code first: three sub-agents will look at routes, authentication and tests in parallel."),
      ...FAN_OUT.map((t) => tool('task', t)),
    );
  }
  if (editAsked(req)) return lastIsEditResult(req) ? summary(req) : followUp(req);
  const pending = pendingTasks(req);
  if (pending.length > 0) {
    const names = pending.map((d) => `“${d}”`).join(' and ');
    return reply(say(`${names} ${pending.length === 1 ? 'is' : 'are'} still working in the background. I'll go on when ${pending.length === 1 ? 'its result arrives' : 'their results arrive'}.`));
  }
  const both = /both/i.test(JSON.stringify(req.messages));
  const routes = both ? "app.post('/v1/login', rateLimit, login);\napp.post('/v2/login', rateLimit, login);" : "app.post('/v1/login', login);\napp.post('/v2/login', rateLimit, login);";
  return reply(
    say('The sub-agents agree: login lives in `src/server.ts` and has no throttling. Adding a limiter there.'),
    // Only a sub-agent read the file so far, and edit needs this session to have read it.
    tool('read', { file_path: 'src/server.ts' }),
    tool('edit', {
      file_path: 'src/server.ts',
      old_string: "app.post('/v1/login', login);\napp.post('/v2/login', login);",
      new_string: `${routes}`,
    }),
  );
}

function summary(req: Request): DemoReply {
  // Denied with a note, the result is the user's note, flagged as an error.
  const applied = !lastToolFailed(req) && !/denied|rejected|declined/i.test(lastToolResult(req));
  return reply(
    say(
      applied
        ? [
            '## Done',
            '',
            '- **Routes**: `src/server.ts` defines `/v1/login` and `/v2/login`.',
            '- **Auth**: bearer tokens checked by `authenticate` in `src/auth/middleware.ts`.',
            '- **Change**: login now goes through `rateLimit`:',
            '',
            '```ts',
            "app.post('/v2/login', rateLimit, login);",
            '```',
            '',
            'Next step would be defining `rateLimit` (e.g. 5 attempts per minute per IP) and a test in `tests/auth.test.js`.',
          ].join('\n')
        : 'Understood, I left `src/server.ts` unchanged. The findings above still hold.',
    ),
  );
}

const SCRIPTS: Record<string, Step[]> = {
  [ROUTES_TASK]: [
    () => reply(tool('glob', { pattern: 'src/**/*.ts' })),
    () => reply(tool('read', { file_path: 'src/server.ts' })),
    () =>
      reply(
        say('Login is registered twice.'),
        tool('ask_user', {
          question: 'Login exists as /v1/login and /v2/login. Which should get the rate limit?',
          options: ['/v2/login only', 'Both', '/v1/login only'],
        }),
      ),
    (req) =>
      reply(
        say(
          `Routes in \`src/server.ts\`: POST /v1/login, POST /v2/login, POST /v2/logout (auth), GET /v2/users (auth). ${lastToolResult(req) || 'The user gave no preference.'}`,
        ),
      ),
  ],
  [AUTH_TASK]: [
    () => reply(tool('grep', { pattern: 'authenticate|verifyToken', path: 'src', output_mode: 'content' })),
    () => reply(tool('read', { file_path: 'src/auth/middleware.ts' })),
    () => reply(say('`authenticate` reads a bearer token and checks it with `verifyToken` (src/auth/tokens.ts); login itself is unauthenticated and unthrottled.')),
  ],
  [TESTS_TASK]: [
    () => reply(tool('list', { path: '.' })),
    () => reply(tool('bash', { command: 'ls tests', description: 'List the test folder' })),
    (req) => reply(say(`Tests run with \`node --test tests/\`. Test files: ${lastToolResult(req).trim() || 'none found'}; there is one auth test.`)),
  ],
};

/** What the user typed last (not a tool result), for the reply to any prompt off the script. */
function lastUserText(req: Request): string {
  for (let i = req.messages.length - 1; i >= 0; i--) {
    const m = req.messages[i];
    if (m?.role !== 'user') continue;
    if (typeof m.content === 'string') return m.content;
    const text = (m.content as Array<{ type: string; text?: string }>).filter((p) => p.type === 'text').map((p) => p.text ?? '');
    if (text.length > 0) return text.join('');
  }
  return '';
}

/** The answer to any prompt off the script: labelled, naming what was asked, after a short pause. */
export const FOLLOW_UP_LABEL = '(scripted demo reply)';

function followUp(req: Request): DemoReply {
  const asked = lastUserText(req).replace(/\s+/g, ' ').trim();
  const quoted = asked.length > 60 ? `${asked.slice(0, 59)}…` : asked;
  return {
    content: [
      say(
        `${FOLLOW_UP_LABEL} You asked: “${quoted}”. This demo only replays its script, so it cannot answer that. Set ANTHROPIC_API_KEY and start opencode-ink without --demo to talk to Claude.`,
      ),
    ],
    chunkDelayMs: 10,
    // Long enough to see the "working…" line a real model's first token takes.
    delayMs: 800,
  };
}

function firstUserText(req: Request): string {
  const first = req.messages[0];
  if (!first) return '';
  if (typeof first.content === 'string') return first.content;
  return (first.content as Array<{ type: string; text?: string }>)
    .filter((p) => p.type === 'text')
    .map((p) => p.text ?? '')
    .join('');
}

/** The scripted reply for a request: by conversation and by how far it has got. */
export function demoReply(req: Request): DemoReply {
  if (firstUserText(req).trim() === DEMO_PROMPT) return mainReply(req);
  const steps = SCRIPTS[firstUserText(req).trim()];
  const step = req.messages.filter((m) => m.role === 'assistant').length;
  const next = steps?.[step];
  return next ? next(req) : followUp(req);
}
