// Loaded with `node --import`: records every module URL the process resolves into the file
// named by OPENCODE_INK_TRACE_IMPORTS, so a benchmark can check what `run` really loads.
import { register } from 'node:module';
import { appendFileSync } from 'node:fs';
import { MessageChannel } from 'node:worker_threads';

const file = process.env.OPENCODE_INK_TRACE_IMPORTS;
if (file) {
  const { port1, port2 } = new MessageChannel();
  port1.on('message', (url) => appendFileSync(file, `${url}\n`));
  port1.unref();
  register('./trace-hooks.mjs', { parentURL: import.meta.url, data: { port: port2 }, transferList: [port2] });
}
