// Memory and time of `read` on a 200 MB file that is one single line (a minified bundle or
// a log without newlines): the tool must stream it through a fixed buffer, not load it.
// Peak RSS is the process's own high-water mark (getrusage), so nothing between samples
// is missed; "growth" is that peak minus the RSS just before the read.
import { closeSync, openSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { readTool } from '../src/core/tools/read.js';
import type { ToolContext } from '../src/core/tools/types.js';
import { FileViews } from '../src/core/workspace/file-views.js';
import { tempProject } from './support.js';

const MB = 1024 * 1024;
const SIZE = 200 * MB;
const { dir } = tempProject('oci-bench-read-');
const file = join(dir, 'one-line.js');
const block = Buffer.from('var a=1;'.repeat(MB / 8));
const fd = openSync(file, 'w');
for (let written = 0; written < SIZE; written += block.length) writeSync(fd, block);
closeSync(fd);

const ctx: ToolContext = {
  sessionId: 'bench',
  cwd: dir,
  agent: 'build',
  callId: 'bench',
  signal: new AbortController().signal,
  ask: () => Promise.resolve(),
  progress: () => undefined,
  todos: { get: () => [], set: () => undefined },
  fileViews: new FileViews(),
};

const rssBefore = process.memoryUsage.rss();
const peakBefore = process.resourceUsage().maxRSS * 1024;
const start = performance.now();
const result = await readTool.execute({ file_path: file }, ctx);
const ms = performance.now() - start;
const peak = process.resourceUsage().maxRSS * 1024;
rmSync(dir, { recursive: true, force: true });

const mb = (bytes: number): string => `${(bytes / MB).toFixed(1)} MB`;
console.log('\n### read: 200 MB file, one line\n');
console.log('| measure | value |');
console.log('|---|---|');
console.log(`| output characters | ${result.output.length} |`);
console.log(`| bytes read from the file | ${mb(Number(result.metadata?.bytesRead ?? NaN))} |`);
console.log(`| wall time | ${ms.toFixed(0)} ms |`);
console.log(`| RSS before the read | ${mb(rssBefore)} |`);
console.log(`| peak RSS of the process | ${mb(Math.max(peak, peakBefore))} |`);
console.log(`| peak RSS growth during the read | ${mb(Math.max(0, peak - Math.max(rssBefore, peakBefore)))} |`);
