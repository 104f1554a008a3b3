// Filling a command's template with what was typed after it (DESIGN §10):
// `$ARGUMENTS` is the whole argument text; `$1`…`$N` are words, and the highest one used
// takes the rest of the line; a template with no placeholder gets the arguments appended.

interface Token {
  value: string;
  start: number;
}

/** Words of the argument text; "double" or 'single' quotes keep spaces inside one word. */
export function splitArguments(args: string): Token[] {
  const tokens: Token[] = [];
  const re = /"([^"]*)"|'([^']*)'|(\S+)/g;
  for (let m = re.exec(args); m; m = re.exec(args)) {
    tokens.push({ value: m[1] ?? m[2] ?? m[3] ?? '', start: m.index });
  }
  return tokens;
}

const PLACEHOLDER = /\$(ARGUMENTS|[1-9]\d*)/g;

export function renderTemplate(template: string, args: string): string {
  const text = args.trim();
  const keys = [...template.matchAll(PLACEHOLDER)].map((m) => m[1]!);
  if (!keys.length) return text ? `${template}\n\n${text}` : template;
  const positions = keys.filter((k) => k !== 'ARGUMENTS').map(Number);

  const tokens = splitArguments(text);
  const last = positions.length ? Math.max(...positions) : 0;
  const positional = (n: number): string => {
    if (n === last && tokens.length > n) return text.slice(tokens[n - 1]!.start).trim();
    return tokens[n - 1]?.value ?? '';
  };
  return template.replace(PLACEHOLDER, (_, key: string) => (key === 'ARGUMENTS' ? text : positional(Number(key))));
}
