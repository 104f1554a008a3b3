// Writes dist/events.schema.json: the JSON Schema of `run --format json` lines, generated from
// the zod definitions in src/core/events/schema.ts (the same ones the code and tests use), so
// the published schema cannot drift from what the program emits.
import { build } from 'esbuild';
import { writeFileSync } from 'node:fs';
import { Buffer } from 'node:buffer';
import { join } from 'node:path';

export async function writeEventsSchema(outdir) {
  const bundled = await build({
    entryPoints: ['src/core/events/schema.ts'],
    bundle: true,
    write: false,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    logLevel: 'warning',
  });
  const code = bundled.outputFiles[0].text;
  const mod = await import(`data:text/javascript;base64,${Buffer.from(code).toString('base64')}`);
  writeFileSync(join(outdir, 'events.schema.json'), `${JSON.stringify(mod.eventsJsonSchema(), null, 2)}\n`);
}
