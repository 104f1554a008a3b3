// An editor for the ACP tests: the built `opencode-ink acp` as a subprocess, driven over its
// stdio by the SDK's client side. It records every `session/update`, answers permission asks
// and forms as the test says (approving once by default), and keeps stdout and stderr for
// checks.
import { spawn, type ChildProcess } from 'node:child_process';
import { Writable } from 'node:stream';
import { client, ndJsonStream, type ClientConnection, type CreateElicitationRequest, type RequestPermissionRequest, type SessionNotification } from '@agentclientprotocol/sdk';
import { afterEach, beforeEach } from 'vitest';
import { BIN, startCliProject, type CliProject } from '../support/cli.js';

export interface Editor {
  conn: ClientConnection;
  child: ChildProcess;
  updates: SessionNotification[];
  permissions: RequestPermissionRequest[];
  elicitations: CreateElicitationRequest[];
  stdout(): string;
  stderr(): string;
  /** Resolves when an update matching `predicate` has arrived (or already had). */
  waitForUpdate(predicate: (n: SessionNotification) => boolean, timeoutMs?: number): Promise<SessionNotification>;
  exited: Promise<number | null>;
}

export interface EditorOptions {
  answerPermission?: (req: RequestPermissionRequest, signal: AbortSignal) => string | Promise<string | undefined>;
  answerElicitation?: (req: CreateElicitationRequest) => string;
  env?: NodeJS.ProcessEnv;
}

export function startEditor(p: Pick<CliProject, 'project' | 'env'>, opts: EditorOptions = {}): Editor {
  const child = spawn(process.execPath, [BIN, 'acp'], { cwd: p.project, env: { PATH: process.env.PATH, ...p.env, ...opts.env }, stdio: ['pipe', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
  const readable = new ReadableStream<Uint8Array>({
    start(controller) {
      child.stdout!.on('data', (d: Buffer) => {
        out += d.toString();
        controller.enqueue(new Uint8Array(d));
      });
      child.stdout!.on('end', () => controller.close());
    },
  });
  const updates: SessionNotification[] = [];
  const waiters: Array<() => void> = [];
  const permissions: RequestPermissionRequest[] = [];
  const elicitations: CreateElicitationRequest[] = [];
  const app = client({ name: 'test-editor' })
    .onNotification('session/update', ({ params }) => {
      updates.push(params);
      for (const w of waiters.splice(0)) w();
    })
    .onRequest('session/request_permission', async ({ params, signal }) => {
      permissions.push(params);
      const optionId = opts.answerPermission ? await opts.answerPermission(params, signal) : 'once';
      return optionId === undefined ? { outcome: { outcome: 'cancelled' } } : { outcome: { outcome: 'selected', optionId } };
    })
    .onRequest('elicitation/create', ({ params }) => {
      elicitations.push(params);
      const answer = opts.answerElicitation?.(params);
      return answer === undefined ? { action: 'decline' } : { action: 'accept', content: { answer } };
    });
  const conn = app.connect(ndJsonStream(Writable.toWeb(child.stdin!) as WritableStream<Uint8Array>, readable));
  const waitForUpdate = (predicate: (n: SessionNotification) => boolean, timeoutMs = 15_000) =>
    new Promise<SessionNotification>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no matching update in ${timeoutMs} ms; stderr: ${err}`)), timeoutMs);
      const check = () => {
        const found = updates.find(predicate);
        if (found) {
          clearTimeout(timer);
          resolve(found);
        } else waiters.push(check);
      };
      check();
    });
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  return { conn, child, updates, permissions, elicitations, stdout: () => out, stderr: () => err, waitForUpdate, exited };
}

/** `initialize`, offering forms (elicitation) unless told not to. */
export async function initialize(editor: Editor, elicitation = true) {
  return editor.conn.agent.request('initialize', {
    protocolVersion: 1,
    clientCapabilities: elicitation ? { elicitation: { form: {} } } : {},
  });
}

/** Closes each editor's stdin and waits for its agent process to exit. */
export async function closeEditors(editors: readonly Editor[]): Promise<void> {
  for (const e of editors) {
    e.child.stdin!.end();
    await e.exited;
  }
}

/**
 * A fresh project per test and the editors started on it, all closed after the test: call at
 * the top of a describe block. `onProject` receives each test's project; `start` opens an
 * editor on the current one; `track` closes one started otherwise with the others.
 */
export function editorsPerTest(onProject: (p: CliProject) => void): { start: (opts?: EditorOptions) => Editor; track: (e: Editor) => Editor } {
  let project: CliProject | undefined;
  let editors: Editor[] = [];
  beforeEach(async () => {
    project = await startCliProject();
    editors = [];
    onProject(project);
  });
  afterEach(async () => {
    await closeEditors(editors);
    await project?.close();
  });
  return {
    start: (opts) => {
      if (!project) throw new Error('editorsPerTest: start() called outside a test');
      const e = startEditor(project, opts);
      editors.push(e);
      return e;
    },
    track: (e) => {
      editors.push(e);
      return e;
    },
  };
}
