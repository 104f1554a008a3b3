import { describe, expect, it } from 'vitest';
import { analyzeBash, bashPermissionRequest, decideBash, decideBashChain } from '../../src/core/permission/bash-match.js';
import { grantCovers } from '../../src/core/permission/gate.js';
import { DEFAULT_RULES, rulesFromConfig, type Ruleset } from '../../src/core/permission/rules.js';
import type { PermissionConfig } from '../../src/core/permission/schema.js';

function rules(bash: PermissionConfig[string]): Ruleset {
  return [...DEFAULT_RULES, ...rulesFromConfig({ bash })];
}

async function decide(ruleset: Ruleset, command: string): Promise<string> {
  return decideBash(ruleset, await analyzeBash(command));
}

const gitStatus = rules({ '*': 'ask', 'git status*': 'allow' });
const noRm = rules({ '*': 'allow', 'rm *': 'deny' });

describe('bash rules: allow covers only what it names', () => {
  it.each([
    'git status',
    'git status --short',
    'git status 2>&1',
    'git status >/dev/null',
    'git status >&2',
    'git status &>/dev/null',
    '/usr/bin/git status',
    '"git" status',
    'git status # ; touch X',
    'git status | git status',
    'git status \\`touch X\\`',
    'git status <<"EOF"\n$(touch X)\n`touch X`\nEOF',
    "git status <<'EOF'\n`touch X`\nEOF",
    'CI=1 NODE_ENV=test DEBUG=* git status',
    'n=3; git status',
  ])('allows %j', async (command) => {
    expect(await decide(gitStatus, command)).toBe('allow');
  });

  it.each([
    'git status; touch X',
    'git status && touch X',
    'git status || touch X',
    'git status | sh',
    'git status $(touch X)',
    'git status `touch X`',
    'git status <(touch X)',
    'git status >(touch X)',
    'git status > ~/.bashrc',
    'git status >> f',
    'git status &> f',
    'git status >| f',
    'git status 2>f',
    'git status <> f',
    'git status & touch X',
    'git status\ntouch X',
    '(git status; touch X)',
    '{ git status; touch X; }',
    'git status; eval "touch X"',
    'git status && bash -c "touch X"',
    'FOO=$(touch X) git status',
    'PATH=/tmp/evil:$PATH git status',
    'LD_PRELOAD=/tmp/x.so git status',
    'env GIT_EXTERNAL_DIFF=/tmp/x git status',
    'export PATH=/tmp; git status',
    'HOME=/tmp/evil git status',
    'http_proxy=http://evil git status',
    "x='a[$(touch X)]'; git status",
    'x=$(pwd); git status',
    'git status "$(touch X)"',
    'git status ${X:-$(touch X)}',
    'git status $((1 + $(touch X)))',
    'f() { touch X; }; git status',
    'if git status; then touch X; fi',
    'for i in 1; do touch X; done',
    'while git status; do touch X; done',
    'cat <<EOF\n$(touch X)\nEOF',
    './git status',
    'git status; (((',
    '$(echo git) status',
    'g{it,} status',
    'git status > "$F"',
    'time -o f git status',
    'find . -exec touch X \\;',
    'git status ${x:-`touch X`}',
    'git status <<-EOF\n\t`touch X`\n\tEOF',
    "trap 'touch X' EXIT; git status",
    'git status ${x/`touch X`/}',
    'git status `git status \\`touch X\\``',
  ])('asks about %j', async (command) => {
    expect(await decide(gitStatus, command)).toBe('ask');
  });

  it('asks rather than denies what no rule denies', async () => {
    expect(await decide(gitStatus, 'git status; touch X')).toBe('ask');
    expect(await decide(gitStatus, 'git status > ~/.bashrc')).toBe('ask');
  });

  it('lets a tool-wide allow cover redirections, but never an unreadable program when something is denied', async () => {
    const all = rules('allow');
    expect(await decide(all, 'echo hi > out.txt')).toBe('allow');
    expect(await decide(all, '$CMD x')).toBe('allow');
    expect(await decide(noRm, 'echo hi > out.txt')).toBe('allow');
    expect(await decide(noRm, '$CMD x')).toBe('ask');
  });
});

describe('bash rules: deny cannot be spelled around', () => {
  it.each([
    'rm x',
    '/bin/rm x',
    '\\rm x',
    '"rm" x',
    "'rm' x",
    "r''m x",
    'r"m" x',
    'rm\tx',
    'rm  -rf   x',
    'env rm x',
    'env -i FOO=1 rm x',
    'env -u HOME -- rm x',
    'command rm x',
    'command -p rm x',
    'builtin rm x',
    'exec rm x',
    'xargs rm',
    'find . | xargs -0 rm',
    'find . | xargs -n 1 -I {} rm {}',
    'find . -name "*.tmp" -exec rm {} +',
    'bash -c "rm x"',
    "sh -c 'rm x'",
    'zsh -c "rm x"',
    'dash -ec "rm x"',
    'bash -c "bash -c \\"rm x\\""',
    'eval "rm x"',
    'eval rm x',
    'nice -n 5 rm x',
    'nice -5 rm x',
    'nohup rm x',
    'timeout 5 rm x',
    'timeout -s KILL 5s rm x',
    'time rm x',
    'sudo rm x',
    'sudo -u root rm x',
    'stdbuf -o0 rm x',
    'setsid rm x',
    'busybox rm x',
    'eval -- "rm x"',
    'RM x',
    'shopt -s expand_aliases; alias ls="rm x"; ls',
    'hash -p /bin/rm ls; ls x',
    'BASH_ALIASES[ls]="rm x"',
    'BASH_CMDS[ls]=/bin/rm; ls x',
    'ionice -c 3 rm x',
    'nice -n 5 env timeout 5 rm x',
    'echo; rm x',
    'echo | rm x',
    '$(rm x)',
    'echo `rm x`',
    'cat <(rm x)',
    '(rm x)',
    '{ rm x; }',
    'true && rm x',
    'f() { rm x; }',
    'if true; then rm x; fi',
    'echo $((1 + $(rm x)))',
    'rm "$X"',
    '! rm x',
    '{rm,x}',
  ])('denies %j', async (command) => {
    expect(await decide(noRm, command)).toBe('deny');
  });

  it.each(['$(echo rm) x', '$CMD x', '${CMD} x', '"$CMD" x', 'env $CMD x', 'bash -c "$SCRIPT"', 'eval "$S"', '/bin/r? x', 'r[m] x'])(
    'asks about %j, whose program only running it would tell',
    async (command) => {
      expect(await decide(noRm, command)).toBe('ask');
    },
  );

  it.each([
    'echo "rm x" | sh',
    'bash < script.sh',
    'bash script.sh',
    'source ./script.sh',
    '. ./script.sh',
    'xargs sh',
  ])('asks about %j, which runs code the line does not show', async (command) => {
    expect(await decide(noRm, command)).toBe('ask');
  });

  it.each(["trap 'rm x' EXIT", 'trap -- "rm x" INT TERM', 'watch -n 1 rm x', 'flock /tmp/lock rm x', 'coproc rm x', 'fakeroot rm x'])(
    'denies %j, which runs rm later or through another program',
    async (command) => {
      expect(await decide(noRm, command)).toBe('deny');
    },
  );

  it('lets a named rule allow a script run when nothing is denied', async () => {
    expect(await decide(rules({ '*': 'ask', 'bash build.sh*': 'allow' }), 'bash build.sh --fast')).toBe('allow');
    expect(await decide(rules({ '*': 'ask', 'trap *': 'allow', 'echo *': 'allow' }), "trap 'echo bye' EXIT")).toBe('allow');
    expect(await decide(rules({ '*': 'ask', 'trap *': 'allow', 'echo *': 'allow' }), "trap 'touch X' EXIT")).toBe('ask');
  });

  it('denies what is unreadable when everything but named commands is denied', async () => {
    const onlyGit = rules({ '*': 'deny', 'git status*': 'allow' });
    expect(await decide(onlyGit, '$CMD x')).toBe('deny');
    expect(await decide(onlyGit, 'git status; (((')).toBe('deny');
    expect(await decide(onlyGit, 'git status')).toBe('allow');
  });

  it('matches wrappers themselves against specific rules', async () => {
    const noSudo = rules({ '*': 'allow', 'sudo *': 'deny', 'nice *': 'ask' });
    expect(await decide(noSudo, 'sudo ls')).toBe('deny');
    expect(await decide(noSudo, 'nice -n 5 ls')).toBe('ask');
    expect(await decide(rules({ '*': 'ask', 'ls*': 'allow' }), 'sudo ls')).toBe('ask');
    expect(await decide(rules({ '*': 'ask', 'ls*': 'allow' }), 'timeout 5 ls')).toBe('allow');
    expect(await decide(rules({ '*': 'ask', 'ls*': 'allow' }), 'command -v ls')).toBe('ask');
  });

  it('survives long and deeply nested lines without losing a command', async () => {
    expect(await decide(noRm, `${'true && '.repeat(5000)}rm x`)).toBe('deny');
    expect(await decide(noRm, `${'$('.repeat(2000)}rm x${')'.repeat(2000)}`)).toBe('deny');
    expect(await decide(gitStatus, `${'('.repeat(3000)}git status`)).toBe('ask');
  });

  it('follows eval and bash -c only so deep', async () => {
    let command = 'rm x';
    for (let i = 0; i < 40; i++) command = `eval ${command}`;
    expect(await decide(rules({ '*': 'allow' }), command)).toBe('allow');
    expect(await decide(noRm, command)).toBe('ask');
  });
});

describe('bash rules across a chain', () => {
  it('takes the strictest verdict of a child and its ancestors, command by command', async () => {
    const root = rules({ '*': 'allow', 'rm *': 'deny' });
    const middle = rules({ '*': 'ask', 'git *': 'allow', 'touch *': 'allow' });
    const child = rules({ '*': 'allow' });
    const chain = [child, middle, root];
    expect(decideBashChain(chain, await analyzeBash('git status && touch X'))).toBe('allow');
    expect(decideBashChain(chain, await analyzeBash('git status && ls'))).toBe('ask');
    expect(decideBashChain(chain, await analyzeBash('git status && env rm x'))).toBe('deny');
    expect(decideBashChain([child], await analyzeBash('git status && env rm x'))).toBe('allow');
  });
});

describe('the bash permission request', () => {
  it('lists the simple commands and the patterns "always" would store', async () => {
    const request = await bashPermissionRequest('git status --short && npm run build | tee log; FOO=1 /bin/ls -la');
    expect(request.patterns).toEqual(['git status --short', 'npm run build', 'tee log', 'ls -la']);
    expect(request.always).toEqual(['git status*', 'npm run*', 'tee log*', 'ls*']);
    expect(request.subject).toBe('git status --short && npm run build | tee log; FOO=1 /bin/ls -la');
  });

  it('stores nothing for a program it cannot read, and names privileged wrappers', async () => {
    expect((await bashPermissionRequest('$CMD x')).always).toEqual([]);
    expect((await bashPermissionRequest('sudo apt install x')).always).toEqual(['sudo apt*', 'apt install*']);
    expect((await bashPermissionRequest('./script.sh')).always).toEqual(['./script.sh*']);
  });
});

describe('"always allow" grants', () => {
  it('cover a bash line only command by command', async () => {
    const grant = ['git status*'];
    expect(grantCovers('bash', grant, await bashPermissionRequest('git status -s'))).toBe(true);
    expect(grantCovers('bash', grant, await bashPermissionRequest('git status; rm -rf x'))).toBe(false);
    expect(grantCovers('bash', grant, await bashPermissionRequest('git status $(rm -rf x)'))).toBe(false);
    expect(grantCovers('bash', grant, await bashPermissionRequest('git status > f'))).toBe(false);
    expect(grantCovers('bash', grant, await bashPermissionRequest('$CMD status'))).toBe(false);
    expect(grantCovers('bash', [...grant, 'rm*'], await bashPermissionRequest('git status; rm -rf x'))).toBe(true);
    expect(grantCovers('edit', ['src/*'], { permission: 'edit', patterns: ['src/a.ts'], subject: 'diff' })).toBe(true);
    expect(grantCovers('edit', ['src/*'], { permission: 'edit', patterns: ['lib/a.ts'], subject: 'diff' })).toBe(false);
  });
});
