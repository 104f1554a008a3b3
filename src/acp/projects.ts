// One engine per project folder, built lazily on the first request naming that cwd, through
// the same project loading as `run` (configuration, agents, commands, trust). Every engine
// shares one session store, so a session started from one folder can be listed or loaded
// whatever folder the editor names next. Warnings and the trust notice go to stderr (logs):
// stdout belongs to the protocol.
import { isAbsolute, resolve } from 'node:path';
import { hideCredentials, loadProject } from '../core/project-context.js';
import { Engine } from '../core/engine.js';
import { dataDir, type Config } from '../core/config/index.js';
import { hasCredentials } from '../core/provider/credentials.js';
import { SessionStore } from '../core/store/index.js';

export interface ProjectsOptions {
  env: NodeJS.ProcessEnv;
  log: (line: string) => void;
  /** `acp -m`: the model for every root session. */
  model?: string;
  /** `acp --trust`: trust every project this process opens, for this process only. */
  trustOnce?: boolean;
}

export class Projects {
  readonly store: SessionStore;
  private readonly engines = new Map<string, Engine>();
  private readonly configs = new Map<string, Config>();
  private readonly created: Array<(engine: Engine) => void> = [];

  constructor(private readonly options: ProjectsOptions) {
    this.store = SessionStore.open(dataDir(options.env));
    // A session still marked running belongs to a process that died mid-turn.
    this.store.markInterrupted();
  }

  /**
   * Whether the configuration of `cwd` (or the user's) has something to authenticate with.
   * A configuration that does not load counts as none; session/new reports its error.
   */
  hasCredentials(cwd: string): boolean {
    const config = this.configs.get(this.key(cwd));
    // `acp -m ollama/x` needs no Anthropic key: check the provider of the model in use.
    if (config) return hasCredentials(config, this.options.env, this.options.model);
    try {
      return hasCredentials(loadProject({ cwd, env: this.options.env, trustOnce: this.options.trustOnce ?? false }).config, this.options.env, this.options.model);
    } catch {
      return false;
    }
  }

  private key(cwd: string): string {
    return isAbsolute(cwd) ? resolve(cwd) : resolve(process.cwd(), cwd);
  }

  /** Called for every engine, when it is built. */
  onEngine(listener: (engine: Engine) => void): void {
    this.created.push(listener);
  }

  /** The engine for a folder, built on first use. Throws a ConfigError for a bad config there. */
  engineFor(cwd: string): Engine {
    const dir = this.key(cwd);
    const known = this.engines.get(dir);
    if (known) return known;
    const { env, log } = this.options;
    const project = loadProject({ cwd: dir, env, trustOnce: this.options.trustOnce ?? false });
    hideCredentials(project.config, env);
    for (const w of project.warnings) log(w);
    if (project.trust.notice) log(project.trust.notice);
    const engine = new Engine({
      cwd: dir,
      config: project.config,
      store: this.store,
      agents: project.agents,
      commands: project.commands,
      sandbox: project.sandbox,
      hooks: project.hooks,
      skills: project.skills,
      permissionRules: project.permissionRules,
      toolEnv: project.toolEnv,
      // The editor answers questions and permission requests.
      interactive: true,
      ...(this.options.model ? { model: this.options.model } : {}),
    });
    this.engines.set(dir, engine);
    this.configs.set(dir, project.config);
    for (const listener of this.created) listener(engine);
    return engine;
  }

  /** Every engine built so far. */
  all(): Engine[] {
    return [...this.engines.values()];
  }

  close(): void {
    this.store.close();
  }
}
