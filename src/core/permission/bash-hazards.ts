// Places where bash evaluates a value as code although no command word shows it. Arithmetic
// (`$((x))`, `(( x ))`, `for ((…))`, `let`, array indices, `${x:off}`, `[[ x -lt 1 ]]`,
// `declare -i`) evaluates the *contents* of variables, and a value like `a[$(touch P)]` runs
// its command substitution there; so do `${x@P}`, indirect `${!x}`, namerefs, the `-v` test
// and the variable names given to `read`/`printf -v`. A value that came from a file or an
// earlier command can hold anything, so these are harmless only on literals. Each function
// returns why a node may run hidden code, or undefined when it provably cannot.
import type { Node } from 'web-tree-sitter';
import { wordOf, type Word } from './bash-words.js';

/** Arithmetic nodes that only combine other arithmetic. */
const ARITHMETIC_STRUCTURE = new Set(['binary_expression', 'unary_expression', 'ternary_expression', 'parenthesized_expression']);
/** `$#`, `$?`, `$$`, `$!`: always numbers. */
const NUMERIC_SPECIALS = new Set(['#', '?', '$', '!']);
/** A number literal in any base bash reads (`42`, `0x1f`, `8#17`, `36#zz`). */
const NUMBER = /^-?\d[\w#@]*$/;
/** A plain variable name, optionally with a literal index (`a[3]`, `a[@]`). */
const PLAIN_NAME = /^[A-Za-z_]\w*(\[(\d+|@|\*)\])?$/;
const ARITHMETIC_TESTS = new Set(['-eq', '-ne', '-lt', '-le', '-gt', '-ge']);
/** Variables bash expands as prompts or runs as files later in the same line. */
const PROMPT_VARIABLES = new Set(['PS0', 'PS1', 'PS2', 'PS3', 'PS4', 'PROMPT_COMMAND']);
const STARTUP_FILES = new Set(['BASH_ENV', 'ENV']);

function quote(node: Node): string {
  const text = node.text.length > 60 ? `${node.text.slice(0, 57)}...` : node.text;
  return `\`${text}\``;
}

/** True when every operand of an arithmetic expression is a literal number. */
function literalArithmetic(root: Node): boolean {
  const stack: Node[] = [...root.namedChildren.filter((c): c is Node => c !== null)];
  for (let node = stack.pop(); node; node = stack.pop()) {
    // A nested `$((…))` yields a number; its own operands are checked when the walk reaches it.
    if (node.type === 'number' || node.type === 'comment' || node.type === 'arithmetic_expansion') continue;
    if (node.type === 'word' && NUMBER.test(node.text)) continue;
    if (node.type === 'simple_expansion' && NUMERIC_SPECIALS.has(node.namedChildren[0]?.text ?? '') && node.namedChildren[0]?.type === 'special_variable_name') continue;
    if (!ARITHMETIC_STRUCTURE.has(node.type)) return false;
    for (const child of node.namedChildren) if (child) stack.push(child);
  }
  return true;
}

/** A `[[ … ]]` operand an arithmetic test may evaluate: literal numbers only. */
function literalNumber(node: Node): boolean {
  if (node.type === 'simple_expansion') return node.namedChildren[0]?.type === 'special_variable_name' && NUMERIC_SPECIALS.has(node.namedChildren[0].text);
  const word = wordOf(node);
  return word.static && /^-?\d+$/.test(word.value);
}

/** Why a node of the tree may run code no command shows; undefined when it cannot. */
export function nodeHazard(node: Node): string | undefined {
  switch (node.type) {
    case 'arithmetic_expansion':
      return literalArithmetic(node) ? undefined : `arithmetic on a variable in ${quote(node)}`;
    case 'compound_statement':
      return node.children[0]?.type === '((' && !literalArithmetic(node) ? `arithmetic on a variable in ${quote(node)}` : undefined;
    case 'c_style_for_statement': {
      const header = node.children.filter((c): c is Node => c !== null && c.type !== 'do_group' && c.type !== 'compound_statement');
      return header.every((c) => !c.isNamed || c.type === 'number' || (ARITHMETIC_STRUCTURE.has(c.type) && literalArithmetic(c)))
        ? undefined
        : `arithmetic on a variable in ${quote(node)}`;
    }
    case 'subscript': {
      const index = node.namedChildren[1];
      return !index || /^(-?\d+|@|\*)$/.test(index.text) ? undefined : `an array index evaluated as arithmetic in ${quote(node)}`;
    }
    case 'array':
      // `a=([$x]=1)`: an index inside a compound assignment is arithmetic too.
      return node.namedChildren.some((c) => c !== null && /^\[(?!(-?\d+|@|\*)\]=)/.test(c.text)) ? `an array index evaluated as arithmetic in ${quote(node)}` : undefined;
    case 'expansion':
      return expansionHazard(node);
    case 'test_command':
      return testHazard(node);
    case 'variable_assignment': {
      const name = node.childForFieldName('name')?.text ?? '';
      const value = node.childForFieldName('value');
      if (STARTUP_FILES.has(name)) return `\`${name}\` names a file later shells run`;
      if (PROMPT_VARIABLES.has(name) && value && /[$`]/.test(value.text)) return `\`${name}\` is expanded as a prompt later`;
      return undefined;
    }
    case 'declaration_command':
      return declarationHazard(node);
    default:
      return undefined;
  }
}

function expansionHazard(node: Node): string | undefined {
  const tokens = node.children.filter((c): c is Node => c !== null);
  if (tokens[1]?.type === '!') {
    // `${!prefix*}`, `${!prefix@}` and `${!array[@]}` list names or keys; any other `!` dereferences a value.
    const last = tokens[tokens.length - 2];
    const listsNames = (last?.type === '*' || last?.type === '@') && tokens.length === 5;
    const listsKeys = tokens.length === 4 && tokens[2]?.type === 'subscript' && /\[[@*]\]$/.test(tokens[2].text);
    if (!listsNames && !listsKeys) return `indirect expansion ${quote(node)}`;
  }
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i]!;
    if (token.type === '@' && tokens[i + 1]?.type === 'P') return `prompt expansion ${quote(node)}`;
    if (token.type === ':') {
      // `${x:offset:length}`: both are arithmetic.
      for (let k = i + 1; k < tokens.length && tokens[k]!.type !== ':' && tokens[k]!.type !== '}'; k++) {
        const part = tokens[k]!;
        if (part.isNamed && !(part.type === 'number' || (part.type === 'word' && NUMBER.test(part.text)) || (ARITHMETIC_STRUCTURE.has(part.type) && literalArithmetic(part)))) {
          return `a substring offset evaluated as arithmetic in ${quote(node)}`;
        }
      }
    }
  }
  return undefined;
}

/** `[[ x -lt 1 ]]` evaluates both sides as arithmetic; `[[ -v 'a[…]' ]]` evaluates an index. */
function testHazard(root: Node): string | undefined {
  const stack: Node[] = [root];
  for (let node = stack.pop(); node; node = stack.pop()) {
    const operator = node.children.find((c) => c?.type === 'test_operator')?.text;
    if (node.type === 'binary_expression' && operator && ARITHMETIC_TESTS.has(operator)) {
      const operands = node.namedChildren.filter((c): c is Node => c !== null && c.type !== 'test_operator');
      if (!operands.every(literalNumber)) return `an arithmetic test on a variable in ${quote(node)}`;
    }
    if (node.type === 'unary_expression' && (operator === '-v' || operator === '-R')) {
      const operand = node.namedChildren.find((c) => c !== null && c.type !== 'test_operator');
      const word = operand ? wordOf(operand) : undefined;
      if (!word?.static || !PLAIN_NAME.test(word.value)) return `a variable test on ${quote(node)}`;
    }
    if (node.type === 'command_substitution' || node.type === 'process_substitution') continue;
    for (const child of node.namedChildren) if (child) stack.push(child);
  }
  return undefined;
}

/** `declare -i x=$v` evaluates `$v` as arithmetic; `declare -n r=…` makes every use of r dereference its value. */
function declarationHazard(node: Node): string | undefined {
  const keyword = node.children[0]?.text ?? '';
  if (!['declare', 'typeset', 'local'].includes(keyword)) return undefined;
  const flags = node.namedChildren.filter((c): c is Node => c !== null && c.type === 'word' && /^-[A-Za-z]+$/.test(c.text)).map((c) => c.text);
  const integer = flags.some((f) => f.includes('i'));
  const reference = flags.some((f) => f.includes('n'));
  for (const child of node.namedChildren) {
    if (!child || child.type === 'word' || child.type === 'comment') continue;
    if (child.type !== 'variable_assignment') return `a variable declared from a value in ${quote(node)}`;
    const valueNode = child.childForFieldName('value');
    const value = valueNode ? wordOf(valueNode) : undefined;
    if (integer && value && !(value.static && NUMBER.test(value.value))) return `an integer variable set from a value in ${quote(node)}`;
    if (reference && value && !(value.static && PLAIN_NAME.test(value.value))) return `a name reference in ${quote(node)}`;
    if (valueNode?.type !== 'array' && /[aA]/.test(flags.join('')) && !value?.static) return `an array declared from a value in ${quote(node)}`;
  }
  return undefined;
}

/** Builtins that take variable names, where a name like `a[$(…)]` runs code. */
export function commandHazard(program: string, args: Word[]): string | undefined {
  const names: Word[] = [];
  if (program === 'let') {
    if (args.every((a) => a.static && /^[\d\s+*/%()<>=!&|^~?:-]*$/.test(a.value) && !/[A-Za-z_]/.test(a.value))) return undefined;
    return `\`let\` evaluates ${args.map((a) => a.value).join(' ')}`;
  }
  if (program === 'test' || program === '[') {
    for (let i = 0; i < args.length; i++) if (args[i]!.value === '-v' || args[i]!.value === '-R') names.push(args[i + 1] ?? args[i]!);
  } else if (program === 'printf') {
    for (let i = 0; i < args.length; i++) if (args[i]!.value === '-v') names.push(args[i + 1] ?? args[i]!);
  } else if (program === 'read') {
    for (let i = 0; i < args.length; i++) {
      const v = args[i]!.value;
      if (/^-[^-]*[dinNpt]$/.test(v) && args[i]!.static) i++;
      else if (/^-[^-]*a$/.test(v) && args[i]!.static) names.push(args[++i] ?? args[i - 1]!);
      else if (!v.startsWith('-') || !args[i]!.static) names.push(args[i]!);
    }
  } else if (program === 'unset') {
    names.push(...args.filter((a) => !(a.static && /^-[fvn]+$/.test(a.value))));
  }
  const bad = names.find((n) => !n.static || !PLAIN_NAME.test(n.value));
  return bad ? `\`${program}\` given the variable name \`${bad.value}\`` : undefined;
}
