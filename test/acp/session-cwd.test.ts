// The folder an editor names in `session/new` is where every tool of the session runs, so it
// must be one: ACP requires an absolute path, and a relative one (resolved against wherever
// the agent process happened to start) or a path that is not a folder is refused with one
// sentence naming it, before any engine is built for it.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable, Writable } from 'node:stream';
import { client, ndJsonStream } from '@agentclientprotocol/sdk';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BIN, startCliProject, type CliProject } from '../support/cli.js';

describe('acp session/new with a folder that is not one', { timeout: 60_000 }, () => {
  let p: CliProject;
  let scratch: string;
  beforeEach(async () => {
    p = await startCliProject();
    scratch = mkdtempSync(join(tmpdir(), 'oci-acp-cwd-'));
  });
  afterEach(async () => {
    await p.close();
    rmSync(scratch, { recursive: true, force: true });
  });

  it('refuses a relative path, a missing folder and a file, naming each', async () => {
    const child = spawn(process.execPath, [BIN, 'acp'], { cwd: p.project, env: { PATH: process.env.PATH, ...p.env }, stdio: ['pipe', 'pipe', 'pipe'] });
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
    const conn = client({ name: 'test-editor' }).connect(
      ndJsonStream(Writable.toWeb(child.stdin) as WritableStream<Uint8Array>, Readable.toWeb(child.stdout) as ReadableStream<Uint8Array>),
    );
    await conn.agent.request('initialize', { protocolVersion: 1, clientCapabilities: {} });
    const file = join(scratch, 'notes.txt');
    writeFileSync(file, 'x');
    await expect(conn.agent.request('session/new', { cwd: 'src', mcpServers: [] })).rejects.toThrow(/"src" is not an absolute path/);
    await expect(conn.agent.request('session/new', { cwd: join(scratch, 'gone'), mcpServers: [] })).rejects.toThrow(/gone" does not exist/);
    await expect(conn.agent.request('session/new', { cwd: file, mcpServers: [] })).rejects.toThrow(/notes\.txt" is not a folder/);
    // The process is still fine: a real folder works.
    const { sessionId } = await conn.agent.request('session/new', { cwd: p.project, mcpServers: [] });
    expect(sessionId).toMatch(/^ses_/);
    child.stdin.end();
    expect(await exited).toBe(0);
  });
});
