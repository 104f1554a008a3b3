// Syntax highlighting for fenced code: lowlight (highlight.js grammars) turns code into a
// token tree, flattened here into coloured segments per line so Ink can draw it.

import type { createLowlight } from 'lowlight';
import { syntaxColor } from '../theme.js';

export interface Segment {
  text: string;
  color?: string;
}

type Lowlight = ReturnType<typeof createLowlight>;

// highlight.js's grammars take a noticeable part of start-up, so they load after the first
// frame; code drawn before that (rare: it needs a model reply) is shown plain.
let lowlight: Lowlight | undefined;
let loading: Promise<void> | undefined;

export function loadHighlighter(): Promise<void> {
  loading ??= import('lowlight').then((mod) => {
    lowlight = mod.createLowlight(mod.common);
  });
  return loading;
}

/** Common fence labels highlight.js does not know under that name. */
const ALIASES: Record<string, string> = {
  sh: 'bash',
  shell: 'bash',
  zsh: 'bash',
  console: 'bash',
  js: 'javascript',
  jsx: 'javascript',
  mjs: 'javascript',
  cjs: 'javascript',
  ts: 'typescript',
  tsx: 'typescript',
  mts: 'typescript',
  py: 'python',
  rb: 'ruby',
  yml: 'yaml',
  md: 'markdown',
  rs: 'rust',
  golang: 'go',
  'c++': 'cpp',
  html: 'xml',
  jsonc: 'json',
};

interface HastLike {
  type: string;
  value?: string;
  properties?: { className?: unknown };
  children?: HastLike[];
}

export function resolveLanguage(lang: string | undefined): string | undefined {
  if (!lang) return undefined;
  const name = lang.trim().split(/\s+/)[0]?.toLowerCase() ?? '';
  const resolved = ALIASES[name] ?? name;
  return resolved && lowlight?.registered(resolved) ? resolved : undefined;
}

/**
 * Lines of segments for `code`. Unknown or missing languages come back as plain lines:
 * guessing with highlightAuto is slow and often wrong on short snippets.
 */
export function highlightLines(code: string, lang?: string): Segment[][] {
  const language = resolveLanguage(lang);
  const lines: Segment[][] = [[]];
  const emit = (text: string, color: string | undefined) => {
    const parts = text.split('\n');
    parts.forEach((part, i) => {
      if (i > 0) lines.push([]);
      if (part) (lines[lines.length - 1] as Segment[]).push(color ? { text: part, color } : { text: part });
    });
  };
  if (!language || !lowlight) {
    emit(code, undefined);
    return lines;
  }
  let tree: HastLike;
  try {
    tree = lowlight.highlight(language, code) as HastLike;
  } catch {
    emit(code, undefined);
    return lines;
  }
  const walk = (node: HastLike, color: string | undefined) => {
    if (node.type === 'text') {
      emit(node.value ?? '', color);
      return;
    }
    const own = scopeColor(node.properties?.className);
    for (const child of node.children ?? []) walk(child, own ?? color);
  };
  walk(tree, undefined);
  return lines;
}

function scopeColor(className: unknown): string | undefined {
  if (!Array.isArray(className)) return undefined;
  for (const name of className) {
    if (typeof name !== 'string' || !name.startsWith('hljs-')) continue;
    const color = syntaxColor(name.slice(5));
    if (color) return color;
  }
  return undefined;
}
