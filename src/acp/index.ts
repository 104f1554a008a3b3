// Entry of `opencode-ink acp` (loaded on demand by the CLI): the Agent Client Protocol on
// stdio. stdout carries protocol messages only, one JSON-RPC message a line; every log line
// goes to stderr. No terminal code (Ink, React, chalk) is loaded on this path.
import { Readable, Writable } from 'node:stream';
import { ndJsonStream } from '@agentclientprotocol/sdk';
import { serveAcp } from './server.js';

export interface AcpCommandOptions {
  model?: string;
  trust?: boolean;
  version: string;
}

/** Serves the editor on this process's stdin/stdout until it closes the connection; resolves to the exit code. */
export async function runAcp(opts: AcpCommandOptions): Promise<number> {
  const log = (line: string) => void process.stderr.write(`${line}\n`);
  // A stray console.log from any module would corrupt the protocol stream: send it to stderr.
  console.log = console.error;
  console.info = console.error;
  console.debug = console.error;
  // Started by hand in a terminal: say what it is waiting for instead of sitting silent.
  if (process.stdin.isTTY) log('opencode-ink acp speaks the Agent Client Protocol on stdin/stdout and is meant to be started by an editor (see "Editors (ACP)" in the README). Ctrl+D quits.');
  const output = Writable.toWeb(process.stdout) as WritableStream<Uint8Array>;
  const input = Readable.toWeb(process.stdin) as ReadableStream<Uint8Array>;
  await serveAcp(ndJsonStream(output, input), {
    env: process.env,
    log,
    version: opts.version,
    ...(opts.model ? { model: opts.model } : {}),
    ...(opts.trust ? { trustOnce: true } : {}),
  });
  return 0;
}
