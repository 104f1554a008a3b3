#!/usr/bin/env node
// Starts the bundled CLI. `--version` is answered here without loading the bundle so that
// scripts probing for the binary pay only for Node's own start-up.
import { readFileSync } from 'node:fs';

const args = process.argv.slice(2);
if (args.length === 1 && (args[0] === '--version' || args[0] === '-v')) {
  const manifest = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
  process.stdout.write(`${manifest.version}\n`);
} else {
  let cli;
  try {
    cli = await import('../dist/cli.js');
  } catch (err) {
    if (err && err.code === 'ERR_MODULE_NOT_FOUND' && String(err.message).includes('dist/cli.js')) {
      process.stderr.write('opencode-ink is not built yet: run `npm run build` (npm ci does it for you).\n');
      process.exit(1);
    }
    throw err;
  }
  const code = await cli.main(args);
  // Open keep-alive sockets or timers must not hold a finished command open; flush first.
  process.stdout.write('', () => process.stderr.write('', () => process.exit(code)));
}
