// ink-testing-library's `render`, on a terminal of the test's size: its own stdout always
// reports 100 columns and no rows, so narrow and short screens need this one. Same surface
// (lastFrame, stdin.write, unmount); Ink runs in debug mode, so a frame is the printed
// transcript plus the live region, as with ink-testing-library.
import { EventEmitter } from 'node:events';
import { render as inkRender } from 'ink';
import type { ReactElement } from 'react';

class SizedStdout extends EventEmitter {
  private last: string | undefined;
  constructor(
    readonly columns: number,
    readonly rows: number,
  ) {
    super();
  }
  write = (frame: string): boolean => {
    this.last = frame;
    return true;
  };
  lastFrame = (): string | undefined => this.last;
}

/** What Ink reads keys from: each write is one read, as a terminal delivers a burst. */
class TestStdin extends EventEmitter {
  readonly isTTY = true;
  private data: string | null = null;
  write = (data: string): void => {
    this.data = data;
    this.emit('readable');
    this.emit('data', data);
  };
  read = (): string | null => {
    const { data } = this;
    this.data = null;
    return data;
  };
  setEncoding(): void {}
  setRawMode(): void {}
  resume(): void {}
  pause(): void {}
  ref(): void {}
  unref(): void {}
}

export interface SizedRender {
  lastFrame(): string | undefined;
  stdin: { write(data: string): void };
  unmount(): void;
}

export function renderSized(node: ReactElement, size: { columns: number; rows: number }): SizedRender {
  const stdout = new SizedStdout(size.columns, size.rows);
  const stderr = new SizedStdout(size.columns, size.rows);
  const stdin = new TestStdin();
  const instance = inkRender(node, {
    stdout: stdout as unknown as NodeJS.WriteStream,
    stderr: stderr as unknown as NodeJS.WriteStream,
    stdin: stdin as unknown as NodeJS.ReadStream,
    debug: true,
    exitOnCtrlC: false,
    patchConsole: false,
  });
  return { lastFrame: stdout.lastFrame, stdin, unmount: () => instance.unmount() };
}
