// The CLI as a Unix tool: piped stdin joins the prompt, a reader that goes away (`| head -1`)
// ends the command quietly, `help` is help, and `-p` is `run`.
import { execFile } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { firstUserText } from '../support/conversations.js';
import { text, toolUse, type FakeServer } from '../support/fake-anthropic.js';
import { BIN, runCli, startCli, startCliProject, type CliProject, type CliResult } from '../support/cli.js';
import { SessionStore } from '../../src/core/store/index.js';
import { CLOSED_PIPE_EXIT } from '../../src/cli/closed-pipe.js';
import { MAX_STDIN_BYTES } from '../../src/cli/stdin.js';

let ctx: CliProject;
let server: FakeServer;
let project: string;
let env: NodeJS.ProcessEnv;

beforeEach(async () => {
  ctx = await startCliProject();
  ({ server, project, env } = ctx);
});
afterEach(() => ctx.close());

/** Runs a shell command line with the binary as `$OI`, as a user's pipeline would. */
function shell(line: string): Promise<CliResult> {
  return new Promise((resolve) => {
    execFile('sh', ['-c', line], { cwd: project, env: { PATH: process.env.PATH, ...env, OI: `"${process.execPath}" "${BIN}"` } }, (err, stdout, stderr) => {
      const code = err ? ((err as { code?: number }).code ?? 1) : 0;
      resolve({ code, signal: null, stdout, stderr });
    });
  });
}

const noStackTrace = (stderr: string) => expect(stderr).not.toMatch(/\n\s+at |EPIPE|Error:/);

describe('piped stdin', () => {
  it('appends what is piped to the prompt after a blank line', async () => {
    server.enqueue(text('Looks fine.'));
    const result = await shell('printf "diff --git a/x b/x\\n+added line\\n" | eval "$OI run review this"');
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('Looks fine.\n');
    expect(firstUserText(server.requests[0]!)).toBe('review this\n\ndiff --git a/x b/x\n+added line');
  });

  it('takes stdin as the whole prompt when there are no words (`echo q | opencode-ink run`)', async () => {
    server.enqueue(text('answer'));
    const result = await runCli(['run'], { cwd: project, env, stdin: 'q\n' });
    expect(result.code).toBe(0);
    expect(firstUserText(server.requests[0]!)).toBe('q');
  });

  it('reads a redirected file, with -p as with run', async () => {
    writeFileSync(join(project, 'notes.txt'), 'line one\nline two\n');
    server.enqueue(text('summary'));
    const result = await shell('eval "$OI -p summarize" < notes.txt');
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('summary\n');
    expect(firstUserText(server.requests[0]!)).toBe('summarize\n\nline one\nline two');
  });

  it('is a usage error when stdin is empty and there are no words, before any request', async () => {
    const result = await runCli(['run'], { cwd: project, env, stdin: '  \n' });
    expect(result.code).toBe(2);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toContain('stdin was empty');
    expect(server.requests).toHaveLength(0);
  });

  it('is a usage error with no words and stdin on /dev/null (as in CI), without waiting', async () => {
    const result = await runCli(['run'], { cwd: project, env });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('run needs a prompt');
    expect(server.requests).toHaveLength(0);
  });

  it('ignores /dev/null when the prompt has words', async () => {
    server.enqueue(text('ok'));
    const result = await runCli(['run', 'just', 'words'], { cwd: project, env });
    expect(result.code).toBe(0);
    expect(firstUserText(server.requests[0]!)).toBe('just words');
  });

  // A shorter first-byte wait than the default 3 s, so these tests do not sit through it.
  const shortWait = () => ({ ...env, OPENCODE_INK_STDIN_WAIT_MS: '200' });

  it('does not hang on a pipe that is held open and never written: it runs the words alone, and says so', async () => {
    server.enqueue(text('ok'));
    const { child, done } = startCli(['run', 'only', 'words'], { cwd: project, env: shortWait(), stdin: 'pipe' });
    const result = await done;
    child.stdin!.destroy();
    expect(result.code).toBe(0);
    expect(result.stderr).toContain('nothing arrived on stdin within 0.2 s');
    expect(firstUserText(server.requests[0]!)).toBe('only words');
  });

  it('with no words waits for a slow writer, saying what it waits for', async () => {
    server.enqueue(text('ok'));
    const { child, done } = startCli(['run'], { cwd: project, env: shortWait(), stdin: 'pipe' });
    let stderr = '';
    await new Promise<void>((resolve) => {
      child.stderr!.on('data', (d: Buffer) => {
        stderr += d.toString();
        if (stderr.includes('Waiting for the prompt on stdin')) resolve();
      });
    });
    child.stdin!.end('late prompt\n');
    const result = await done;
    expect(result.code).toBe(0);
    expect(firstUserText(server.requests[0]!)).toBe('late prompt');
  });

  it('keeps only the first part of a huge input, and says so on stderr and in the prompt', async () => {
    server.enqueue(text('ok'));
    const line = `${'x'.repeat(99)}\n`;
    const huge = line.repeat(Math.ceil((MAX_STDIN_BYTES * 3) / line.length));
    const result = await runCli(['run', 'count the lines'], { cwd: project, env, stdin: huge });
    expect(result.code).toBe(0);
    expect(result.stderr).toContain(`stdin is larger than ${MAX_STDIN_BYTES / 1024} KiB`);
    const sent = firstUserText(server.requests[0]!);
    expect(sent.startsWith('count the lines\n\nxxx')).toBe(true);
    expect(sent).toContain('[stdin truncated');
    expect(sent.length).toBeLessThanOrEqual(MAX_STDIN_BYTES + 200);
    expect(sent.length).toBeGreaterThan(MAX_STDIN_BYTES * 0.9);
    // Cut on a line boundary: every kept line is whole.
    expect(sent.split('\n').filter((l) => l.startsWith('x')).every((l) => l.length === 99)).toBe(true);
  });

  it('ends on an endless writer (`yes | opencode-ink run …`)', async () => {
    server.enqueue(text('ok'));
    const result = await shell('yes | eval "$OI run what repeats"');
    expect(result.code).toBe(0);
    expect(firstUserText(server.requests[0]!)).toMatch(/^what repeats\n\ny\ny\n/);
  });

  it('refuses a first-byte wait that is not whole milliseconds in one line with exit 2', async () => {
    const result = await runCli(['run', 'words'], { cwd: project, env: { ...env, OPENCODE_INK_STDIN_WAIT_MS: '2s' }, stdin: 'pipe' });
    expect(result.code).toBe(2);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toContain('OPENCODE_INK_STDIN_WAIT_MS must be a whole number of milliseconds');
    expect(server.requests).toHaveLength(0);
  });

  it('refuses binary input in one line with exit 2', async () => {
    const result = await runCli(['run', 'describe'], { cwd: project, env, stdin: Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00, 0x01]) });
    expect(result.code).toBe(2);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toContain('binary');
    expect(server.requests).toHaveLength(0);
  });
});

/** Starts the binary and destroys our end of its stdout once `closeAfter` says so (`| head -1`). */
function closeStdoutAfter(args: string[], closeAfter: (out: string) => boolean): { done: Promise<CliResult>; closed: Promise<void> } {
  const { child, done } = startCli(args, { cwd: project, env });
  const closed = new Promise<void>((resolve) => {
    let out = '';
    const check = () => {
      if (!closeAfter(out)) return;
      child.stdout!.destroy();
      resolve();
    };
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      check();
    });
    check();
  });
  return { done, closed };
}

describe('a closed output pipe', () => {
  it('stops `run --format json` quietly after the reader has gone, cancelling the run', async () => {
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    // The first reply waits until the reader is gone; the run would then call a tool and
    // wait forever for a second reply, unless it is cancelled.
    server.setHandler(async (_req, i) => {
      if (i > 0) return { type: 'stall' };
      await released;
      return toolUse('glob', { pattern: '**/*' });
    });
    const { done, closed } = closeStdoutAfter(['run', '--yes', '--format', 'json', 'x'], (out) => out.includes('\n'));
    await closed;
    release();
    const result = await done;
    noStackTrace(result.stderr);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(CLOSED_PIPE_EXIT);
  });

  it('stops text output quietly', async () => {
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    server.setHandler(async () => {
      await released;
      return text('line\n'.repeat(50_000));
    });
    const { done, closed } = closeStdoutAfter(['run', 'x'], () => true);
    await closed;
    release();
    const result = await done;
    noStackTrace(result.stderr);
    expect(result.code).toBe(CLOSED_PIPE_EXIT);
  });

  it('stops `agents` quietly', async () => {
    const dir = join(env.OPENCODE_INK_CONFIG_DIR!, 'agents');
    mkdirSync(dir, { recursive: true });
    // About 400 KB of listing: far more than a pipe holds (64 KB), so the writer cannot finish
    // into the buffer between the reader's first read and its close.
    for (let i = 0; i < 400; i++) {
      writeFileSync(join(dir, `helper-${i}.md`), `---\ndescription: ${'Helps with one narrow task. '.repeat(36)}\nmode: subagent\n---\nYou help.\n`);
    }
    const { done } = closeStdoutAfter(['agents'], (out) => out.includes('\n'));
    const result = await done;
    noStackTrace(result.stderr);
    expect(result.code).toBe(CLOSED_PIPE_EXIT);
  });

  it('stops `sessions --json` quietly', async () => {
    const store = SessionStore.open(env.OPENCODE_INK_DATA_DIR!);
    // Prompted sessions: a start removes root sessions nobody ever prompted.
    for (let i = 0; i < 1500; i++) {
      const session = store.createSession({ status: 'idle', model: 'anthropic/claude-sonnet-4-6', cwd: project, agent: 'build', title: `session number ${i} with a longer title`, depth: 0 });
      store.appendMessage(session.id, { role: 'user', content: [{ type: 'text', text: `prompt ${i}` }] });
    }
    store.close();
    const { done } = closeStdoutAfter(['sessions', '--json'], (out) => out.includes('\n'));
    const result = await done;
    noStackTrace(result.stderr);
    expect(result.code).toBe(CLOSED_PIPE_EXIT);
  });

  it('exits 0 when everything was read', async () => {
    const result = await shell('eval "$OI agents" | head -1');
    expect(result.stdout.startsWith('NAME')).toBe(true);
    expect(result.stderr).toBe('');
  });
});

describe('help', () => {
  it('`help run` prints run\'s help and sends nothing to the model', async () => {
    const result = await runCli(['help', 'run'], { cwd: project, env });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('Usage: opencode-ink run [options] [prompt...]');
    expect(result.stdout).toContain('--format');
    expect(server.requests).toHaveLength(0);
  });

  it('`help` lists the commands, and the top level shows -p, -r and --yes', async () => {
    const result = await runCli(['help'], { cwd: project, env });
    expect(result.code).toBe(0);
    for (const s of ['run [options]', 'sessions', 'agents', 'help [command]', '-p, --print', '-r, --resume [id]', '--yes']) expect(result.stdout).toContain(s);
    expect(server.requests).toHaveLength(0);
  });

  it('`--help` lists every command, and a command named first keeps its own help, subcommands and --debug', async () => {
    const top = await runCli(['--help'], { cwd: project, env });
    expect(top.code).toBe(0);
    for (const name of ['run', 'sessions', 'undo', 'redo', 'agents', 'models', 'runners', 'acp', 'mcp', 'trust']) expect(top.stdout).toMatch(new RegExp(`^  ${name}\\b`, 'm'));
    const sessions = await runCli(['sessions', '--help'], { cwd: project, env });
    expect(sessions.code).toBe(0);
    for (const sub of ['show [options] <id>', 'revert [options] <id>', 'diff [options] <id>', '--all', '--debug']) expect(sessions.stdout).toContain(sub);
    const wrongOption = await runCli(['agents', '--nope'], { cwd: project, env });
    expect(wrongOption.code).toBe(2);
    expect(wrongOption.stderr).toContain("unknown option '--nope'");
    expect(server.requests).toHaveLength(0);
  });

  it('`help <word>` for no command is a usage error that says how to ask the model, not a prompt', async () => {
    const result = await runCli(['help', 'me', 'fix', 'this'], { cwd: project, env });
    expect(result.code).toBe(2);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toContain('opencode-ink "help me fix this"');
    expect(server.requests).toHaveLength(0);
  });
});

describe('-p, --print', () => {
  it('runs the prompt like run does', async () => {
    server.enqueue(text('Hi from -p'), text('Hi from run'));
    const viaP = await runCli(['-p', 'say', 'hi'], { cwd: project, env });
    const viaRun = await runCli(['run', 'say', 'hi'], { cwd: project, env });
    expect(viaP).toMatchObject({ code: 0, stdout: 'Hi from -p\n', stderr: '' });
    expect(viaRun).toMatchObject({ code: 0, stdout: 'Hi from run\n', stderr: '' });
    expect(firstUserText(server.requests[0]!)).toBe('say hi');
    const [a, b] = server.requests.map((r) => ({ ...r.body, messages: r.body.messages.length }));
    expect(a).toEqual(b);
  });

  it('takes run\'s options: --format json, -m, --yes', async () => {
    server.enqueue(toolUse('write', { file_path: 'a.txt', content: 'A' }), text('done'));
    const result = await runCli(['--print', '--yes', '--format', 'json', '-m', 'anthropic/claude-haiku-4-5', 'make a.txt'], { cwd: project, env });
    expect(result.code).toBe(0);
    const types = result.stdout.trim().split('\n').map((l) => (JSON.parse(l) as { type: string }).type);
    expect(types.slice(0, 2)).toEqual(['protocol', 'session.created']);
    expect(types).toContain('permission.auto');
    expect(server.requests[0]!.body.model).toBe('claude-haiku-4-5');
  });

  it('refuses --format without -p, and -p with --demo or --resume, with exit 2', async () => {
    for (const args of [['--format', 'json', 'x'], ['-p', '--demo', 'x'], ['-p', '-r', 'abc', 'x']]) {
      const result = await runCli(args, { cwd: project, env });
      expect(result.code, args.join(' ')).toBe(2);
      expect(result.stderr).toMatch(/--format|cannot be used/);
    }
    expect(server.requests).toHaveLength(0);
  });
});
