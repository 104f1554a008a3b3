// Bash rules against lines that run code without a command word, static respellings of a
// denied program, programs that run their arguments as a command, and options that make an
// allowed read-only program write or read elsewhere. Every verdict is asserted exactly.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseAgentMarkdown } from '../../src/core/agents/index.js';
import { analyzeBash, bashPermissionRequest, decideBash } from '../../src/core/permission/bash-match.js';
import { grantCovers } from '../../src/core/permission/gate.js';
import { DEFAULT_RULES, rulesFromConfig, type Ruleset } from '../../src/core/permission/rules.js';
import type { PermissionConfig } from '../../src/core/permission/schema.js';
import { REPO_ROOT } from '../support/repo-root.js';

function rules(bash: PermissionConfig[string], extra: PermissionConfig = {}): Ruleset {
  return [...DEFAULT_RULES, ...rulesFromConfig({ bash }), ...rulesFromConfig(extra)];
}

async function decide(ruleset: Ruleset, command: string): Promise<string> {
  return decideBash(ruleset, await analyzeBash(command));
}

/** The README's example rules. */
const readme = rules({ '*': 'ask', 'git status*': 'allow' });
const denyAll = rules({ '*': 'deny', 'git status*': 'allow' });
const noRm = rules({ '*': 'allow', 'rm *': 'deny' });

function planAgentRules(): Ruleset {
  const file = join(REPO_ROOT, 'agents', 'plan.md');
  const parsed = parseAgentMarkdown(readFileSync(file, 'utf8'), { file, fallbackName: 'plan', defaultMode: 'primary' });
  if (!parsed.ok) throw new Error(parsed.reason);
  return [...readme, ...rulesFromConfig(parsed.agent.permission)];
}

describe('lines without a command word', () => {
  const lines = [
    "x='a[$(touch P)]'; y=$((x))",
    "x='a[$(touch P)]'; (( x ))",
    '(( x ))',
    'a[x]=1',
    "[[ 'a[$(touch P)]' -eq 0 ]]",
    "[[ -v 'a[$(touch P)]' ]]",
    '[[ x -lt 1 ]]',
    "x='$(touch P)'; y=${x@P}",
    'v=$(<version.txt); n=$((v+1))',
    '> keep.txt',
    'git status --untracked-files="$(<~/secret)"',
    'y=${!x}',
    'y=${x:n}',
    'y=$[x]',
    'for ((i = 0; i < n; i++)); do :; done',
    'declare -i y=$x',
    'a=([$x]=1)',
    "PS4='$(touch P)'",
    'git status; y=${a[$i]}',
  ];

  it.each(lines)('asks about %j under the README rules', async (command) => {
    expect(await decide(readme, command)).toBe('ask');
  });

  it.each(lines)('denies %j under a "*": "deny" rule', async (command) => {
    expect(await decide(denyAll, command)).toBe('deny');
  });

  it.each(lines)('asks about %j in the plan agent', async (command) => {
    expect(await decide(planAgentRules(), command)).toBe('ask');
  });

  it.each(["x='a[$(rm x)]'; y=$((x))", 'v=$(<f); (( v ))', "x='$(rm x)'; y=${x@P}"])(
    'asks about %j, which may run a denied command, though everything else is allowed',
    async (command) => {
      expect(await decide(noRm, command)).toBe('ask');
    },
  );

  it('reads `$(<file)` as `cat file`', async () => {
    const request = await bashPermissionRequest('v=$(<version.txt)');
    expect(request.patterns).toEqual(['cat version.txt']);
    expect(await decide(rules({ '*': 'ask', 'cat *': 'deny' }), 'git status --untracked-files="$(<~/secret)"')).toBe('deny');
  });

  it('lets a rule for anything cover a bare redirection, and nothing narrower', async () => {
    expect(await decide(noRm, '> keep.txt')).toBe('allow');
    expect(await decide(rules('allow'), "x='a[$(touch P)]'; y=$((x))")).toBe('allow');
    expect(await decide(readme, '> /dev/null')).toBe('allow');
  });

  it.each(['n=3; git status', '[[ $# -eq 0 ]] && git status', 'git status; (( 2 > 1 ))', '(( $? == 0 )) && git status', 'git status -- "${a[@]}"', 'git status -- "${x:1:2}"', 'git status -- "${a[1]}"'])(
    'allows %j: arithmetic and expansions on literals only',
    async (command) => {
      expect(await decide(readme, command)).toBe('allow');
    },
  );

  it.each(["test -v 'a[$(touch P)]'", "[ -v 'a[$(touch P)]' ]", "printf -v 'a[$(touch P)]' 1", "read 'a[$(touch P)]' <<< 1", 'let x'])(
    'does not let an allow for the builtin cover %j, which evaluates a variable name',
    async (command) => {
      const builtins = rules({ '*': 'ask', 'test *': 'allow', '[ *': 'allow', 'printf *': 'allow', 'read *': 'allow', 'let *': 'allow' });
      expect(await decide(builtins, command)).toBe('ask');
    },
  );
});

describe('static spellings of a denied program', () => {
  it.each([
    "$'rm' x",
    "$'\\x72\\x6d' x",
    "$'\\162\\155' x",
    "$'\\u0072m' x",
    "$'rm\\x00junk' x",
    '$"rm" x',
    '{rm,x}',
    '{rm,-rf} x',
    'true; {rm,x} y',
    "env -S 'rm x'",
    'env --split-string="rm x"',
    "env -S'-i rm x'",
    "env --split-string 'FOO=1 rm x'",
    "bash <<< 'rm x'",
    "sh <<'EOF'\nrm x\nEOF",
    'sh <<-EOF\n\trm x\n\tEOF',
    "sh -s <<< 'rm x'",
    "sh -s -- a b <<< 'rm x'",
    "bash /dev/stdin <<< 'rm x'",
    "bash -c $'rm x'",
    'eval eval eval eval eval rm x',
    `eval "eval 'eval \\"eval eval rm x\\"'"`,
    'taskset 1 rm x',
    'taskset -c 0 rm x',
    'prlimit --nofile=10 rm x',
    'unshare -r rm x',
    'unshare <<< "rm x"',
    'setarch x86_64 -R rm x',
    "script -qc 'rm x' /dev/null",
    "script -q -c 'rm x'",
    'choom -n 10 rm x',
    "rbash -c 'rm x'",
    'chroot / rm x',
    'chroot --userspec=1:1 / rm x',
    'runuser -u nobody rm x',
    "runuser -l nobody -c 'rm x'",
    "su -c 'rm x'",
    "su root -c 'rm x'",
    "su - root -- -c 'rm x'",
    'strace -f -e trace=file rm x',
    'strace -o /dev/null rm x',
    'doas rm x',
    'doas -u root rm x',
    "sg wheel 'rm x'",
    "flock /tmp/l -c 'rm x'",
    'nsenter -t 1 -m rm x',
    'busybox sh -c "rm x"',
    'env -- bash <<< "rm x"',
  ])('denies %j', async (command) => {
    expect(await decide(noRm, command)).toBe('deny');
  });

  it('follows eval to any depth a real line reaches, and asks beyond it', async () => {
    expect(await decide(noRm, `${'eval '.repeat(30)}rm x`)).toBe('deny');
    let nested = 'rm x';
    for (let i = 0; i < 8; i++) nested = `bash -c ${JSON.stringify(nested)}`;
    expect(await decide(noRm, nested)).toBe('deny');
    const tooDeep = `${'eval '.repeat(40)}rm x`;
    expect(await decide(noRm, tooDeep)).toBe('ask');
    expect(await decide(rules({ '*': 'deny', 'eval *': 'allow' }), tooDeep)).toBe('deny');
    expect(await decide(rules('allow'), tooDeep)).toBe('allow');
  });

  it.each(["env -S 'rm ${X}'", "sh <<EOF\n$CMD x\nEOF", 'cat script | sh', 'unshare', "su root -c \"$S\"", "script -c \"$S\""])(
    'asks about %j, which runs something only running the line would tell',
    async (command) => {
      expect(await decide(noRm, command)).toBe('ask');
    },
  );

  it('expands braces in arguments as bash does, and keeps quoted braces', async () => {
    expect((await bashPermissionRequest('echo {a,b}{1..3} "{x,y}" \\{p,q}')).patterns).toEqual(['echo a1 a2 a3 b1 b2 b3 {x,y} {p,q}']);
    expect((await bashPermissionRequest('echo {01..03} {c..a}')).patterns).toEqual(['echo 01 02 03 c b a']);
    expect(await decide(noRm, 'echo {1..100000000}')).toBe('allow');
  });

  it('gives up on brace expansions that grow too fast, asking when the program is among them', async () => {
    expect(await decide(noRm, `echo ${'{a,b}'.repeat(40)}`)).toBe('allow');
    expect(await decide(noRm, `${'{a,b}'.repeat(40)} x`)).toBe('ask');
    expect(await decide(noRm, `echo ${'{a,'.repeat(3000)}${'}'.repeat(3000)}`)).toBe('allow');
    expect(await decide(noRm, `${'{rm,x} y; '.repeat(2000)}`)).toBe('deny');
  });

  it('pins doas as a privileged wrapper: its own rule must allow it too', async () => {
    expect(await decide(rules({ '*': 'ask', 'ls*': 'allow' }), 'doas ls')).toBe('ask');
    expect(await decide(rules({ '*': 'ask', 'ls*': 'allow', 'doas *': 'allow' }), 'doas ls')).toBe('allow');
    expect((await bashPermissionRequest('doas -u root ls -la')).always).toEqual(['doas*', 'ls*']);
  });
});

describe('options that make a read-only program write or read elsewhere', () => {
  const readOnly = rules({ '*': 'ask', 'git *': 'allow', 'sort *': 'allow', 'find *': 'allow', 'sed *': 'allow', 'echo *': 'allow', 'cat*': 'allow' });

  it.each([
    'git log --output=F',
    'git log -p --output="$F"',
    'git diff --no-index /etc/x /dev/null',
    'git diff --no-index ../../x y',
    'git diff ~/.ssh/id_rsa /dev/null',
    'git -c core.pager="touch P" log',
    'git -c alias.l="!touch P" l',
    'git -c core.fsmonitor=./x status',
    'git --config-env=core.pager=EVIL log',
    'git --git-dir=/tmp/x/.git log',
    'git -C /etc log',
    'git grep -O x',
    'git ls-remote --upload-pack="touch P" .',
    'git log $OPTS',
    'git log *',
    'echo --output=F | xargs git log',
    'sort -o out.txt in.txt',
    'sort -uo out.txt in.txt',
    'sort --output=out.txt in.txt',
    'sort --compress-program=./x in.txt',
    'find . -delete',
    'find . -fprint out.txt',
    'sed -i s/a/b/ f',
    'sed -ni s/a/b/ f',
    'sed --in-place=.bak s/a/b/ f',
  ])('asks about %j under an allow for the program', async (command) => {
    expect(await decide(readOnly, command)).toBe('ask');
  });

  it.each([
    'GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=core.pager GIT_CONFIG_VALUE_0=x git log',
    'GIT_CONFIG_PARAMETERS="\'core.pager\'=\'x\'" git log',
    'env GIT_CONFIG_GLOBAL=/tmp/x git log',
  ])('asks about %j, which configures git through the environment', async (command) => {
    expect(await decide(readOnly, command)).toBe('ask');
  });

  it.each([
    'git log --oneline -n 5',
    'git diff HEAD~1 -- src/a.ts',
    'git diff main..feature',
    'git -c color.ui=always log',
    'git -C sub log',
    'git log -- "$F"',
    'git commit -m "$(cat <<\'EOF\'\nFix the parser\nEOF\n)"',
    'sort -k2 -t, in.txt',
    'sort -uk2 in.txt',
    'find . -name "*.ts" -type f',
    'sed -n 1,5p f',
  ])('allows %j', async (command) => {
    expect(await decide(readOnly, command)).toBe('allow');
  });

  it('lets a rule that names the option allow it, and "always allow" stores the command as written', async () => {
    expect(await decide(rules({ '*': 'ask', 'git log*': 'allow', 'git log --output=*': 'allow' }), 'git log --output=F')).toBe('allow');
    expect(await decide(rules({ '*': 'allow' }), 'git log --output=F')).toBe('allow');
    const request = await bashPermissionRequest('git log --output=F');
    expect(request.always).toEqual(['git log --output=F']);
    expect(grantCovers('bash', request.always!, request)).toBe(true);
    expect(grantCovers('bash', request.always!, await bashPermissionRequest('git log --output=G'))).toBe(false);
    expect(grantCovers('bash', ['git log*'], request)).toBe(false);
  });
});
