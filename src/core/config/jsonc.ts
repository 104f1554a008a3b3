// A small JSON-with-comments reader: `//` and `/* */` comments and trailing commas, as
// editors allow in JSON config files. Hand-written rather than "strip, then JSON.parse"
// because V8's JSON errors do not always carry a position, and a config error must point
// at the line and column the user has to fix.

export class JsoncSyntaxError extends Error {
  constructor(
    readonly reason: string,
    readonly line: number,
    readonly column: number,
  ) {
    super(`invalid JSON at line ${line}, column ${column}: ${reason}`);
    this.name = 'JsoncSyntaxError';
  }
}

export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
const ESCAPES: Record<string, string> = { '"': '"', '\\': '\\', '/': '/', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t' };

/** Parses JSONC text; returns `undefined` when the text holds nothing but blanks and comments. */
export function parseJsonc(text: string): JsonValue | undefined {
  return new Reader(text).document();
}

class Reader {
  private pos = 0;

  constructor(private readonly text: string) {
    if (text.charCodeAt(0) === 0xfeff) this.pos = 1;
  }

  document(): JsonValue | undefined {
    this.skip();
    if (this.pos >= this.text.length) return undefined;
    const value = this.value();
    this.skip();
    if (this.pos < this.text.length) this.fail('unexpected text after the end of the JSON value');
    return value;
  }

  private value(): JsonValue {
    const ch = this.text[this.pos];
    if (ch === '{') return this.object();
    if (ch === '[') return this.array();
    if (ch === '"') return this.string();
    if (ch === '-' || (ch !== undefined && ch >= '0' && ch <= '9')) return this.number();
    for (const [word, value] of [['true', true], ['false', false], ['null', null]] as const) {
      if (this.text.startsWith(word, this.pos)) {
        this.pos += word.length;
        return value;
      }
    }
    if (ch === undefined) this.fail('unexpected end of file, expected a value');
    return this.fail(`unexpected ${describeChar(ch)}, expected a value`);
  }

  private object(): JsonValue {
    const out: { [key: string]: JsonValue } = {};
    this.pos++;
    this.skip();
    while (this.text[this.pos] !== '}') {
      if (this.text[this.pos] !== '"') this.fail(this.expected('a property name in double quotes'));
      const key = this.string();
      this.skip();
      if (this.text[this.pos] !== ':') this.fail(this.expected(`":" after the property name "${key}"`));
      this.pos++;
      this.skip();
      // defineProperty keeps a key named "__proto__" an ordinary property, as JSON.parse does.
      Object.defineProperty(out, key, { value: this.value(), enumerable: true, writable: true, configurable: true });
      this.skip();
      if (this.text[this.pos] === ',') {
        this.pos++;
        this.skip();
      } else if (this.text[this.pos] !== '}') {
        this.fail(this.expected('"," or "}" after a property value'));
      }
    }
    this.pos++;
    return out;
  }

  private array(): JsonValue {
    const out: JsonValue[] = [];
    this.pos++;
    this.skip();
    while (this.text[this.pos] !== ']') {
      if (this.pos >= this.text.length) this.fail(this.expected('a value or "]"'));
      out.push(this.value());
      this.skip();
      if (this.text[this.pos] === ',') {
        this.pos++;
        this.skip();
      } else if (this.text[this.pos] !== ']') {
        this.fail(this.expected('"," or "]" after an array item'));
      }
    }
    this.pos++;
    return out;
  }

  private string(): string {
    const start = this.pos;
    this.pos++;
    let out = '';
    for (;;) {
      const ch = this.text[this.pos];
      if (ch === undefined) {
        this.pos = start;
        this.fail('unterminated string');
      }
      if (ch === '"') break;
      if (ch < ' ') this.fail('line break or control character inside a string (use \\n)');
      if (ch === '\\') {
        const next = this.text[this.pos + 1];
        if (next === 'u') {
          const hex = this.text.slice(this.pos + 2, this.pos + 6);
          if (!/^[0-9a-fA-F]{4}$/.test(hex)) this.fail('invalid \\u escape in a string');
          out += String.fromCharCode(parseInt(hex, 16));
          this.pos += 6;
          continue;
        }
        const escaped = next === undefined ? undefined : ESCAPES[next];
        if (escaped === undefined) this.fail(`invalid escape "\\${next ?? ''}" in a string`);
        out += escaped;
        this.pos += 2;
        continue;
      }
      out += ch;
      this.pos++;
    }
    this.pos++;
    return out;
  }

  private number(): number {
    NUMBER.lastIndex = this.pos;
    const match = NUMBER.exec(this.text);
    if (!match) this.fail('invalid number');
    this.pos += match[0].length;
    return Number(match[0]);
  }

  /** Skips blanks and comments. */
  private skip(): void {
    for (;;) {
      const ch = this.text[this.pos];
      if (ch === ' ' || ch === '\t' || ch === '\n' || ch === '\r') {
        this.pos++;
      } else if (ch === '/' && this.text[this.pos + 1] === '/') {
        const end = this.text.indexOf('\n', this.pos);
        this.pos = end === -1 ? this.text.length : end + 1;
      } else if (ch === '/' && this.text[this.pos + 1] === '*') {
        const end = this.text.indexOf('*/', this.pos + 2);
        if (end === -1) this.fail('unterminated /* comment');
        this.pos = end + 2;
      } else {
        return;
      }
    }
  }

  private expected(what: string): string {
    const ch = this.text[this.pos];
    return ch === undefined ? `unexpected end of file, expected ${what}` : `expected ${what}, found ${describeChar(ch)}`;
  }

  private fail(reason: string): never {
    let line = 1;
    let lineStart = 0;
    for (let i = 0; i < this.pos && i < this.text.length; i++) {
      if (this.text[i] === '\n') {
        line++;
        lineStart = i + 1;
      }
    }
    throw new JsoncSyntaxError(reason, line, this.pos - lineStart + 1);
  }
}

function describeChar(ch: string): string {
  if (ch === '\n' || ch === '\r') return 'a line break';
  if (ch === '"') return `'"'`;
  return JSON.stringify(ch);
}
