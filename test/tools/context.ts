// A fake ToolContext for tool tests: a throwaway working directory, a permission asker
// that records every request and can refuse, an in-memory todo list, and the file views of
// one session (what it has read or written).
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PermissionDeniedError, type PermissionRequest, type Todo, type Tool, type ToolContext, type ToolResult } from '../../src/core/tools/types.js';
import { FileViews } from '../../src/core/workspace/file-views.js';
import { waitFor as sharedWaitFor } from '../support/wait.js';

export interface FakeContext extends ToolContext {
  asks: PermissionRequest[];
  progressUpdates: Record<string, unknown>[];
  controller: AbortController;
  /** Requests for which this returns true are refused. */
  deny: (request: PermissionRequest) => boolean;
}

export function makeTempDir(prefix = 'oci-tools-'): string {
  return realpathSync(mkdtempSync(path.join(tmpdir(), prefix)));
}

export function makeContext(cwd: string = makeTempDir()): FakeContext {
  let todos: Todo[] = [];
  const controller = new AbortController();
  const ctx: FakeContext = {
    sessionId: 'ses_test',
    cwd,
    agent: 'build',
    callId: 'call_1',
    signal: controller.signal,
    controller,
    asks: [],
    progressUpdates: [],
    deny: () => false,
    async ask(request) {
      ctx.asks.push(request);
      if (ctx.deny(request)) throw new PermissionDeniedError(`denied ${request.permission}`);
    },
    progress(metadata) {
      ctx.progressUpdates.push(metadata);
    },
    todos: {
      get: () => todos.map((t) => ({ ...t })),
      set: (next) => {
        todos = next.map((t) => ({ ...t }));
      },
    },
    fileViews: new FileViews(),
  };
  return ctx;
}

/** Runs a tool the way the tool runner does: arguments go through the schema first. */
export function run(tool: Tool, args: unknown, ctx: ToolContext): Promise<ToolResult> {
  return tool.execute(tool.parameters.parse(args), ctx);
}

/** Writes files given as { 'rel/path': content } under root, creating directories. */
export function writeTree(root: string, files: Record<string, string | Buffer>): void {
  for (const [rel, content] of Object.entries(files)) {
    const file = path.join(root, rel);
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, content);
  }
}

export function removeDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
}

/** Polls a condition until it holds or the deadline passes. */
export async function waitFor(condition: () => boolean, timeoutMs = 5000, what = 'condition'): Promise<void> {
  await sharedWaitFor(condition, what, { timeoutMs });
}
