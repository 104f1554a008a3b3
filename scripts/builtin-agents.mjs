// Parses the package's built-in agents (agents/*.md) at build time with the program's own
// parser, for src/core/agents/builtin-cache.ts. A file that gives any warning is left out, so
// a start still reports it by parsing the file itself.
import { build } from 'esbuild';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

/** The entries for `__OC_BUILTIN_AGENTS__`; `root` is the package's folder. */
export async function parseBuiltinAgents(root, options) {
  const bundled = await build({
    ...options,
    entryPoints: [join(root, 'src/core/agents/markdown.ts')],
    write: false,
    splitting: false,
    format: 'esm',
    sourcemap: false,
    outdir: undefined,
    outfile: 'parser.mjs',
    define: { ...options.define, __OC_BUILTIN_AGENTS__: 'undefined' },
  });
  const dir = mkdtempSync(join(tmpdir(), 'oc-builtin-agents-'));
  try {
    const parser = join(dir, 'parser.mjs');
    writeFileSync(parser, bundled.outputFiles[0].contents);
    const { parseAgentMarkdown } = await import(pathToFileURL(parser).href);
    const agentsDir = join(root, 'agents');
    const entries = [];
    for (const file of readdirSync(agentsDir).filter((name) => name.endsWith('.md')).sort()) {
      const text = readFileSync(join(agentsDir, file), 'utf8');
      const defaultMode = 'all';
      const parsed = parseAgentMarkdown(text, { file: join(agentsDir, file), fallbackName: file.replace(/\.md$/i, ''), defaultMode });
      if (!parsed.ok || parsed.warnings.length > 0 || parsed.unknownTools.length > 0) {
        console.warn(`agents/${file}: not parsed at build time (${parsed.ok ? parsed.warnings[0] ?? 'unknown tools' : parsed.reason}).`);
        continue;
      }
      const { source: _source, ...agent } = parsed.agent;
      entries.push({ file, text, defaultMode, agent });
    }
    return entries;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
