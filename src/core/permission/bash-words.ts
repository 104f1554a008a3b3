// What a word of a bash command line becomes once the shell has done the expansions that
// need nothing but the text itself: quote removal, backslash escapes, ANSI-C quoting
// (`$'\x72\x6d'`, every escape bash knows), locale quoting (`$"rm"`, taken as written: a
// translation catalogue would need TEXTDOMAIN, which a line setting it shows) and brace
// expansion (`{rm,x}` → `rm` `x`, `{1..3}`, capped at MAX_BRACE_WORDS). A word that needs a
// variable, a command substitution or any other run-time value is marked non-static with its
// source text, never guessed; unquoted glob characters are flagged, since only the file
// system knows what they become.
import type { Node } from 'web-tree-sitter';

export interface Word {
  /** The word as the shell would pass it when static; its source text otherwise. */
  value: string;
  static: boolean;
  /** Has unquoted glob characters (`*`, `?`, `[`), so the shell may turn it into file names. */
  glob: boolean;
}

/** More words than this from one brace expansion (`{1..100000}`) make the word unknown. */
export const MAX_BRACE_WORDS = 1024;
/** More braces than this in one word, or more expansion steps, make the word unknown (the work would grow too fast). */
const MAX_BRACES = 64;
const MAX_BRACE_STEPS = 4096;

/** One character of a word and whether the shell may still treat it as syntax (unquoted, unescaped). */
interface Char {
  ch: string;
  active: boolean;
}

export function literal(text: string): Word {
  return { value: text, static: true, glob: false };
}

export function dynamic(node: Node): Word {
  return { value: node.text, static: false, glob: false };
}

/** `text` as one shell word. */
export function shellQuote(text: string): string {
  return `'${text.replace(/'/g, "'\\''")}'`;
}

/** A word as it appears where bash does no brace expansion (assignment values, redirection targets). */
export function wordOf(node: Node): Word {
  const chars = charsOf(node);
  if (!chars) return dynamic(node);
  return wordFrom(chars);
}

/**
 * The words one argument node becomes (usually one; several after brace expansion).
 * `gluedBrace` adds the `{` that the grammar split off a word at the start of a command
 * (`{rm,x} y` parses as an error, but bash reads `{rm,x}` as a word).
 */
export function wordsOf(node: Node, gluedBrace = false): Word[] {
  const chars = charsOf(node);
  if (!chars) return [gluedBrace ? { value: `{${node.text}`, static: false, glob: false } : dynamic(node)];
  const all = gluedBrace ? [{ ch: '{', active: true }, ...chars] : chars;
  const braces = all.filter((c) => c.active && c.ch === '{').length;
  const expanded = braces === 0 ? [all] : braces > MAX_BRACES ? null : braceExpand(all, { words: 0, steps: 0 });
  if (!expanded) return [{ value: node.text, static: false, glob: false }];
  // Brace expansion drops words that end up empty only when they came from an unquoted empty part.
  return expanded.map(wordFrom);
}

function wordFrom(chars: Char[]): Word {
  return { value: chars.map((c) => c.ch).join(''), static: true, glob: chars.some((c) => c.active && (c.ch === '*' || c.ch === '?' || c.ch === '[')) };
}

/** The characters of a static word node, or null when it holds anything only running the line would tell. */
function charsOf(node: Node): Char[] | null {
  switch (node.type) {
    case 'word':
    case 'number':
    case 'brace_expression':
      return bareChars(node.text);
    case 'raw_string':
      return quoted(node.text.slice(1, -1));
    case 'ansi_c_string':
      return quoted(decodeAnsiC(node.text.slice(2, -1)));
    case 'translated_string': {
      const inner = node.namedChildren[0];
      return inner?.type === 'string' ? charsOf(inner) : null;
    }
    case 'string': {
      if (node.namedChildren.some((c) => c?.type !== 'string_content')) return null;
      return quoted(node.text.slice(1, -1).replace(/\\\n/g, '').replace(/\\([$`"\\])/g, '$1'));
    }
    case 'concatenation': {
      if (node.children.some((c) => c !== null && !c.isNamed)) return null;
      const all: Char[] = [];
      for (const child of node.namedChildren) {
        const part = child ? charsOf(child) : null;
        if (!part) return null;
        all.push(...part);
      }
      return all;
    }
    default:
      return null;
  }
}

function quoted(text: string): Char[] {
  return Array.from(text, (ch) => ({ ch, active: false }));
}

/** An unquoted word: `\x` is a literal x, a backslash-newline disappears. */
function bareChars(text: string): Char[] {
  const chars: Char[] = [];
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (ch !== '\\' || i === text.length - 1) {
      chars.push({ ch, active: true });
      continue;
    }
    const next = text[++i]!;
    if (next !== '\n') chars.push({ ch: next, active: false });
  }
  return chars;
}

const SIMPLE_ESCAPES: Readonly<Record<string, string>> = {
  a: '\x07', b: '\b', e: '\x1b', E: '\x1b', f: '\f', n: '\n', r: '\r', t: '\t', v: '\v', '\\': '\\', "'": "'", '"': '"', '?': '?',
};

/** The text of `$'…'` as bash decodes it; a NUL (`\0`, `\x00`, `\c@`) ends the string, as it does in bash. */
export function decodeAnsiC(body: string): string {
  let out = '';
  for (let i = 0; i < body.length; i++) {
    const ch = body[i]!;
    if (ch !== '\\' || i === body.length - 1) {
      out += ch;
      continue;
    }
    const e = body[++i]!;
    let code: number | undefined;
    if (Object.hasOwn(SIMPLE_ESCAPES, e)) {
      out += SIMPLE_ESCAPES[e];
      continue;
    }
    if (/[0-7]/.test(e)) {
      const digits = /^[0-7]{1,3}/.exec(body.slice(i))![0];
      code = parseInt(digits, 8) & 0xff;
      i += digits.length - 1;
    } else if (e === 'x' || e === 'u' || e === 'U') {
      const max = e === 'x' ? 2 : e === 'u' ? 4 : 8;
      const digits = new RegExp(`^[0-9a-fA-F]{1,${max}}`).exec(body.slice(i + 1))?.[0];
      if (!digits) {
        out += `\\${e}`;
        continue;
      }
      code = parseInt(digits, 16);
      i += digits.length;
    } else if (e === 'c' && i + 1 < body.length) {
      const target = body[++i]!;
      code = target === '?' ? 0x7f : target.toUpperCase().charCodeAt(0) & 0x1f;
    } else {
      out += `\\${e}`;
      continue;
    }
    if (code === 0) break;
    out += code > 0x10ffff ? '\ufffd' : String.fromCodePoint(code);
  }
  return out;
}

interface Budget {
  words: number;
  steps: number;
}

/** Bash's brace expansion over one word; null when it would make more than MAX_BRACE_WORDS words. */
function braceExpand(chars: Char[], budget: Budget): Char[][] | null {
  if (++budget.steps > MAX_BRACE_STEPS) return null;
  for (let open = 0; open < chars.length; open++) {
    if (!isActive(chars[open], '{') || isActive(chars[open - 1], '$')) continue;
    let depth = 0;
    let close = -1;
    const commas: number[] = [];
    for (let j = open + 1; j < chars.length; j++) {
      const c = chars[j]!;
      if (!c.active) continue;
      if (c.ch === '{') depth++;
      else if (c.ch === '}') {
        if (depth === 0) {
          close = j;
          break;
        }
        depth--;
      } else if (c.ch === ',' && depth === 0) commas.push(j);
    }
    if (close < 0) continue;
    const before = chars.slice(0, open);
    const after = chars.slice(close + 1);
    let alternatives: Char[][];
    if (commas.length) {
      alternatives = [];
      let start = open + 1;
      for (const comma of [...commas, close]) {
        alternatives.push(chars.slice(start, comma));
        start = comma + 1;
      }
    } else {
      const sequence = braceSequence(chars.slice(open + 1, close));
      if (sequence === undefined) continue;
      if (sequence === null) return null;
      alternatives = sequence.map((s) => Array.from(s, (ch) => ({ ch, active: false })));
    }
    const result: Char[][] = [];
    for (const alternative of alternatives) {
      const expanded = braceExpand([...before, ...alternative, ...after], budget);
      if (!expanded) return null;
      result.push(...expanded);
      if (result.length > MAX_BRACE_WORDS) return null;
    }
    budget.words += result.length;
    if (budget.words > MAX_BRACE_WORDS * 4) return null;
    return result;
  }
  return [chars];
}

function isActive(c: Char | undefined, ch: string): boolean {
  return c !== undefined && c.active && c.ch === ch;
}

/** `1..5`, `01..10..2`, `a..e`: the words, undefined when not a sequence, null when too many. */
function braceSequence(inner: Char[]): string[] | null | undefined {
  if (inner.some((c) => !c.active)) return undefined;
  const text = inner.map((c) => c.ch).join('');
  const numeric = /^(-?\d+)\.\.(-?\d+)(?:\.\.(-?\d+))?$/.exec(text);
  const letters = /^([A-Za-z])\.\.([A-Za-z])(?:\.\.(-?\d+))?$/.exec(text);
  const match = numeric ?? letters;
  if (!match) return undefined;
  const from = numeric ? Number(match[1]) : match[1]!.charCodeAt(0);
  const to = numeric ? Number(match[2]) : match[2]!.charCodeAt(0);
  const step = Math.abs(Number(match[3] ?? 1)) || 1;
  if (Math.abs(to - from) / step + 1 > MAX_BRACE_WORDS) return null;
  const padded = numeric !== null && (/^-?0\d/.test(match[1]!) || /^-?0\d/.test(match[2]!));
  const width = padded ? Math.max(match[1]!.length, match[2]!.length) : 0;
  const words: string[] = [];
  for (let n = from; from <= to ? n <= to : n >= to; n += from <= to ? step : -step) {
    if (!numeric) words.push(String.fromCharCode(n));
    else words.push(n < 0 ? `-${String(-n).padStart(width - 1, '0')}` : String(n).padStart(width, '0'));
  }
  return words;
}
