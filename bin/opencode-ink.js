#!/usr/bin/env node
// Starts the bundled CLI. `--version` is answered here without loading the bundle so that
// scripts probing for the binary pay only for Node's own start-up. dist/boot.cjs picks the
// bundle: the interactive UI's or `run`'s code-cached script, or the ES modules (src/boot).
//
// CommonJS (bin/package.json), as is dist/boot.cjs: a start whose first module is an ES
// module sets up Node's ES module loader first, ~10 ms that `run` (a classic script, see
// src/boot) would otherwise pay for nothing. Commands served by the ES module bundle load it then.
'use strict';
const args = process.argv.slice(2);
if (args.length === 1 && (args[0] === '--version' || args[0] === '-v')) {
  const { readFileSync } = require('node:fs');
  const manifest = JSON.parse(readFileSync(require('node:path').join(__dirname, '..', 'package.json'), 'utf8'));
  process.stdout.write(`${manifest.version}\n`);
} else {
  // A failure is an unhandled rejection: Node prints it and exits 1, as for a module's top-level await.
  void start();
}

async function start() {
  let main;
  try {
    const boot = require('../dist/boot.cjs');
    main = await boot.loadMain(args);
  } catch (err) {
    const missing = err && (err.code === 'MODULE_NOT_FOUND' || err.code === 'ERR_MODULE_NOT_FOUND');
    if (missing && /dist[\\/](boot\.cjs|cli\.js)/.test(String(err.message))) {
      process.stderr.write('opencode-ink is not built yet: run `npm run build` (npm ci does it for you).\n');
      process.exit(1);
    }
    throw err;
  }
  const code = await main(args);
  // Open keep-alive sockets or timers must not hold a finished command open; flush first.
  process.stdout.write('', () => process.stderr.write('', () => process.exit(code)));
}
