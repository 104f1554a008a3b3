#!/usr/bin/env node
// Starts the bundled CLI. `--version` is answered here without loading the bundle so that
// scripts probing for the binary pay only for Node's own start-up. dist/boot.js picks the
// bundle: the interactive UI's code-cached script or the ES modules (src/boot).
import { readFileSync } from 'node:fs';

const args = process.argv.slice(2);
if (args.length === 1 && (args[0] === '--version' || args[0] === '-v')) {
  const manifest = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
  process.stdout.write(`${manifest.version}\n`);
} else {
  let main;
  try {
    const boot = await import('../dist/boot.js');
    main = await boot.loadMain(args);
  } catch (err) {
    if (err && err.code === 'ERR_MODULE_NOT_FOUND' && /dist[\\/](boot|cli)\.js/.test(String(err.message))) {
      process.stderr.write('opencode-ink is not built yet: run `npm run build` (npm ci does it for you).\n');
      process.exit(1);
    }
    throw err;
  }
  const code = await main(args);
  // Open keep-alive sockets or timers must not hold a finished command open; flush first.
  process.stdout.write('', () => process.stderr.write('', () => process.exit(code)));
}
