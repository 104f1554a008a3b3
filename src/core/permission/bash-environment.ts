// Which `NAME=value` assignments leave the programs of a bash line running as they would
// without them: a short list of locale, colour and port variables and lower-case shell
// variables, set to a value that stays inert wherever it is expanded later. Anything else
// (PATH, LD_PRELOAD, GIT_*, NODE_OPTIONS, a value holding `$`, backticks or brackets) may
// change what a program runs, and the permission rules treat the line accordingly.
import type { Word } from './bash-words.js';

/**
 * Environment variables that only tweak output, locale or a port; setting any other
 * upper-case name (PATH, LD_PRELOAD, HOME, GIT_*, NODE_OPTIONS…) may change what a program runs.
 */
const SAFE_VARIABLES = new Set([
  'CI', 'DEBUG', 'FORCE_COLOR', 'NO_COLOR', 'NODE_ENV', 'NODE_NO_WARNINGS', 'TZ', 'LANG', 'LANGUAGE', 'LC_ALL', 'LC_CTYPE', 'LC_MESSAGES',
  'TERM', 'COLUMNS', 'LINES', 'PORT', 'HOST', 'LOG_LEVEL', 'VERBOSE', 'RUST_BACKTRACE', 'RUST_LOG', 'PYTHONUNBUFFERED',
  'PYTHONDONTWRITEBYTECODE', 'PYTHONIOENCODING', 'GOOS', 'GOARCH', 'CGO_ENABLED',
]);
/** Lower-case names are shell variables, except the proxy settings programs read. */
const SHELL_VARIABLE = /^[a-z_][a-z0-9_]*$/;
/**
 * A value that stays inert wherever it is expanded later: no `$`, backticks or brackets,
 * which arithmetic (`$((x))`, `[[ $x -eq 1 ]]`) would evaluate as code.
 */
const SAFE_VALUE = /^[\w.,:/@%+=*-]*$/;

/** A `NAME=value` that cannot change which program runs or what it loads. */
export function safeAssignment(name: string, value: Word | undefined): boolean {
  const harmlessName = SAFE_VARIABLES.has(name) || (SHELL_VARIABLE.test(name) && !name.endsWith('_proxy'));
  return harmlessName && (value === undefined || (value.static && SAFE_VALUE.test(value.value)));
}
