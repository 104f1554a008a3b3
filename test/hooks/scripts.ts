// Real hook commands for the hook tests: small node scripts written to a temp folder. Each one
// reads its stdin JSON, appends it as one line to a log (so a test sees exactly what the hook
// was given, and in which order hooks ran), then does what its body says.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface HookInput {
  session_id: string;
  cwd: string;
  hook_event_name: string;
  tool_name?: string;
  tool_input?: Record<string, unknown>;
  tool_response?: Record<string, unknown>;
  prompt?: string;
  agent?: string;
  parent_session_id?: string;
  stop_hook_active?: boolean;
  [key: string]: unknown;
}

export class HookScripts {
  readonly log: string;

  constructor(readonly dir: string) {
    mkdirSync(dir, { recursive: true });
    this.log = join(dir, 'hooks.log');
  }

  /**
   * A `node <script>` command. `body` is JavaScript run after the input is read and logged;
   * it sees `input` (the parsed stdin) and `fs` (node:fs), and may write, exit, or hang.
   */
  command(name: string, body: string): string {
    const file = join(this.dir, `${name}.mjs`);
    writeFileSync(
      file,
      `import * as fs from 'node:fs';
let data = '';
process.stdin.setEncoding('utf8');
for await (const chunk of process.stdin) data += chunk;
const input = JSON.parse(data);
fs.appendFileSync(${JSON.stringify(this.log)}, JSON.stringify({ hook: ${JSON.stringify(name)}, input }) + '\\n');
${body}
`,
    );
    return `node ${JSON.stringify(file)}`;
  }

  /** What each hook was given, in the order they ran. */
  calls(name?: string): HookInput[] {
    if (!existsSync(this.log)) return [];
    return readFileSync(this.log, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as { hook: string; input: HookInput })
      .filter((entry) => name === undefined || entry.hook === name)
      .map((entry) => entry.input);
  }
}

/** `{ "<Event>": [ { matcher, hooks: [{ type: "command", command, timeout }] } ] }` for one event. */
export function hookConfig(event: string, command: string, matcher?: string, timeout?: number): Record<string, unknown> {
  return { [event]: [{ ...(matcher !== undefined ? { matcher } : {}), hooks: [{ type: 'command', command, ...(timeout !== undefined ? { timeout } : {}) }] }] };
}
