// Turns a zod issue into the one sentence a user reads: the key path, what is expected and
// what was found. The expectation is read from the schema itself rather than from the
// issue, because an issue names only the bound that failed ("too big") while the user
// needs the whole rule ("an integer from 1 to 5") to fix the file in one go.
import type * as z from 'zod';

type Issue = z.core.$ZodIssue;
type PathKey = PropertyKey;

// The slice of zod's internal definitions this module reads; zod does not export a
// stable introspection API, so the shapes are narrowed here once.
interface Def {
  type: string;
  innerType?: Node;
  in?: Node;
  shape?: Record<string, Node>;
  valueType?: Node;
  element?: Node;
  options?: Node[];
  entries?: Record<string, string | number>;
  values?: unknown[];
  checks?: Array<{ _zod: { def: CheckDef } }>;
}
interface CheckDef {
  check: string;
  value?: number;
  inclusive?: boolean;
  format?: string;
  minimum?: number;
}
interface Node {
  _zod: { def: Def };
}

const WRAPPERS = new Set(['optional', 'default', 'prefault', 'nullable', 'readonly', 'catch', 'nonoptional']);

function node(schema: z.core.$ZodType): Node {
  return schema as unknown as Node;
}

function unwrap(n: Node): Node {
  let current = n;
  for (let i = 0; i < 20; i++) {
    const def = current._zod.def;
    if (WRAPPERS.has(def.type) && def.innerType) current = def.innerType;
    else if (def.type === 'pipe' && def.in) current = def.in;
    else break;
  }
  return current;
}

function childAt(n: Node, key: PathKey): Node | undefined {
  const def = unwrap(n)._zod.def;
  switch (def.type) {
    case 'object':
      return typeof key === 'string' ? def.shape?.[key] : undefined;
    case 'record':
      return def.valueType;
    case 'array':
      return typeof key === 'number' ? def.element : undefined;
    case 'union':
      for (const option of def.options ?? []) {
        const found = childAt(option, key);
        if (found) return found;
      }
      return undefined;
    default:
      return undefined;
  }
}

function schemaAt(n: Node, path: readonly PathKey[]): Node | undefined {
  let current: Node | undefined = n;
  for (const key of path) {
    if (!current) return undefined;
    current = childAt(current, key);
  }
  return current;
}

function quoteList(values: readonly unknown[]): string {
  const quoted = values.map((v) => JSON.stringify(v));
  if (quoted.length <= 1) return quoted.join('');
  return `${quoted.slice(0, -1).join(', ')} or ${quoted[quoted.length - 1]}`;
}

function describeNumber(def: Def): string {
  let integer = false;
  let min: number | undefined;
  let max: number | undefined;
  let exclusiveMin = false;
  let exclusiveMax = false;
  for (const check of def.checks ?? []) {
    const c = check._zod.def;
    if (c.check === 'number_format' && c.format && /int/.test(c.format)) integer = true;
    if (c.check === 'greater_than' && c.value !== undefined) [min, exclusiveMin] = [c.value, c.inclusive === false];
    if (c.check === 'less_than' && c.value !== undefined) [max, exclusiveMax] = [c.value, c.inclusive === false];
  }
  // Integers read better with inclusive bounds: "at least 1" rather than "greater than 0".
  if (integer && min !== undefined && exclusiveMin) [min, exclusiveMin] = [Math.floor(min) + 1, false];
  if (integer && max !== undefined && exclusiveMax) [max, exclusiveMax] = [Math.ceil(max) - 1, false];
  const kind = integer ? 'an integer' : 'a number';
  if (min !== undefined && max !== undefined && !exclusiveMin && !exclusiveMax) return `${kind} from ${min} to ${max}`;
  const bounds: string[] = [];
  if (min !== undefined) bounds.push(exclusiveMin ? `greater than ${min}` : `of at least ${min}`);
  if (max !== undefined) bounds.push(exclusiveMax ? `less than ${max}` : `${bounds.length ? '' : 'of '}at most ${max}`);
  return bounds.length ? `${kind} ${bounds.join(' and ')}` : kind;
}

/** "an integer from 1 to 5", `"bubble" or "deny"`, "a non-empty string", ... */
function describeExpected(n: Node): string {
  const def = unwrap(n)._zod.def;
  switch (def.type) {
    case 'string': {
      const nonEmpty = (def.checks ?? []).some((c) => c._zod.def.check === 'min_length' && (c._zod.def.minimum ?? 0) > 0);
      return nonEmpty ? 'a non-empty string' : 'a string';
    }
    case 'number':
      return describeNumber(def);
    case 'boolean':
      return 'true or false';
    case 'enum':
      return quoteList(Object.values(def.entries ?? {}));
    case 'literal':
      return quoteList(def.values ?? []);
    case 'object':
    case 'record':
      return 'an object';
    case 'array':
      return 'a list';
    case 'union': {
      const parts = (def.options ?? []).map(describeExpected);
      // "a string, a list or an object"; a part that has its own "or" needs the comma.
      if (parts.some((p) => p.includes(' or '))) return parts.join(', or ');
      return parts.length > 1 ? `${parts.slice(0, -1).join(', ')} or ${parts[parts.length - 1]}` : parts.join('');
    }
    default:
      return def.type;
  }
}

function valueAt(input: unknown, path: readonly PathKey[]): unknown {
  let current = input;
  for (const key of path) {
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Record<PathKey, unknown>)[key];
  }
  return current;
}

function showValue(value: unknown): string {
  if (Array.isArray(value)) return 'a list';
  if (value !== null && typeof value === 'object') return 'an object';
  if (typeof value === 'string') {
    const json = JSON.stringify(value);
    return json.length > 42 ? `${json.slice(0, 40)}…"` : json;
  }
  return String(value);
}

/** `subagents.max_depth`, `permission.bash["git status*"]`, `tools[2]`. */
export function formatPath(path: readonly PathKey[]): string {
  let out = '';
  for (const key of path) {
    if (typeof key === 'number') out += `[${key}]`;
    else if (typeof key === 'string' && /^[A-Za-z_$][\w$-]*$/.test(key)) out += out ? `.${key}` : key;
    else out += `[${JSON.stringify(String(key))}]`;
  }
  return out;
}

function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      current[j] = Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, (previous[j - 1] ?? 0) + cost);
    }
    previous = current;
  }
  return previous[b.length] ?? 0;
}

function suggestion(key: string, known: readonly string[]): string | undefined {
  let best: { name: string; distance: number } | undefined;
  for (const name of known) {
    const distance = editDistance(key.toLowerCase(), name.toLowerCase());
    if (distance <= Math.max(1, Math.floor(name.length / 3)) && (!best || distance < best.distance)) best = { name, distance };
  }
  return best?.name;
}

function describeUnknownKeys(root: Node, issue: Extract<Issue, { code: 'unrecognized_keys' }>): string {
  const target = schemaAt(root, issue.path);
  const known = target ? Object.keys(unwrap(target)._zod.def.shape ?? {}) : [];
  const names = issue.keys.map((k) => `"${formatPath([...issue.path, k])}"`);
  const first = issue.keys[0];
  const hint = issue.keys.length === 1 && first !== undefined ? suggestion(first, known) : undefined;
  return `unknown key${names.length > 1 ? 's' : ''} ${names.join(', ')}${hint ? ` (did you mean "${hint}"?)` : ''}.`;
}

/**
 * A union fails as a whole; when the value's type matched one branch (an object given to
 * "string or object"), that branch's deeper complaint is the useful one.
 */
function innerUnionIssue(issue: Extract<Issue, { code: 'invalid_union' }>): Issue | undefined {
  let best: Issue | undefined;
  let ambiguous = false;
  for (const branch of issue.errors) {
    const first = branch[0];
    if (!first || first.path.length === 0) continue;
    if (best && first.path.length === best.path.length) ambiguous = true;
    if (!best || first.path.length > best.path.length) {
      best = first;
      ambiguous = false;
    }
  }
  if (!best || ambiguous) return undefined;
  return { ...best, path: [...issue.path, ...best.path] } as Issue;
}

/**
 * One sentence for one issue, without the file name:
 * `subagents.max_depth must be an integer from 1 to 5 (got 9).`
 */
export function describeIssue(schema: z.core.$ZodType, input: unknown, issue: Issue): string {
  const root = node(schema);
  if (issue.code === 'unrecognized_keys') return describeUnknownKeys(root, issue);
  if (issue.code === 'invalid_union') {
    const inner = innerUnionIssue(issue);
    if (inner) return describeIssue(schema, input, inner);
  }
  const where = issue.path.length ? formatPath(issue.path) : 'the top level';
  const value = valueAt(input, issue.path);
  const target = schemaAt(root, issue.path);
  if (issue.code === 'custom' || !target) return `${where} ${issue.message.replace(/^[A-Z]/, (c) => c.toLowerCase())} (got ${showValue(value)}).`;
  const expected = describeExpected(target);
  if (value === undefined) return `${where} is missing; it must be ${expected}.`;
  return `${where} must be ${expected} (got ${showValue(value)}).`;
}
