// `opencode-ink acp`: the Agent Client Protocol's agent side over a stream, on the official
// SDK. Requests map onto the core's public API (Engine); what the core emits reaches the
// editor through the Bridge. Session ids are the core's root session ids, so a session
// started in an editor is the same one `sessions`, `-s` and the TUI see. /undo, /redo and
// /rewind typed as a prompt are carried out here (checkpoint-commands.ts), announced to the
// editor with the project's custom commands after session/new and session/load.
import { statSync } from 'node:fs';
import { isAbsolute } from 'node:path';
import { agent, PROTOCOL_VERSION, RequestError } from '@agentclientprotocol/sdk';
import type { AgentApp, AgentConnection, ContentBlock, SessionConfigOption, SessionModeState, Stream } from '@agentclientprotocol/sdk';
import type { TurnOutcome } from '../core/agent/loop.js';
import type { Engine } from '../core/engine.js';
import { ConfigError, errorMessage, UserFacingError } from '../core/errors.js';
import { NO_CREDENTIALS_MESSAGE } from '../core/provider/credentials.js';
import { badModeMessage, isPermissionMode, MODE_DESCRIPTIONS, PERMISSION_MODES } from '../core/permission/modes.js';
import { MODEL_ALIASES } from '../core/provider/models.js';
import type { SessionRow } from '../core/store/index.js';
import { availableCommands } from './available-commands.js';
import { Bridge } from './bridge.js';
import { checkpointCommand, runCheckpointCommand, type CheckpointCommand } from './checkpoint-commands.js';
import { isPromptImage, promptImages } from './prompt-images.js';
import { Projects, type ProjectsOptions } from './projects.js';
import { SessionActivity } from './session-activity.js';
import { replayUpdates, stopReason } from './translate.js';

export interface AcpServerOptions extends ProjectsOptions {
  version: string;
}

const AUTH_METHOD_ID = 'anthropic-api-key';
const MODEL_OPTION = 'model';
/** The primary agent, as a session option: ACP's modes are the permission modes (DESIGN §26), as in Claude Code's adapter. */
const AGENT_OPTION = 'agent';
/** How long a closed connection waits for cancelled turns to wind down. */
const SHUTDOWN_WAIT_MS = 5_000;

/** Connects the agent to `stream`; resolves when the client goes away. */
export async function serveAcp(stream: Stream, options: AcpServerOptions): Promise<void> {
  const projects = new Projects(options);
  const { log } = options;
  /** Which engine holds each root session the editor opened. */
  const opened = new Map<string, Engine>();

  const engineFor = (cwd: string): Engine => {
    const problem = cwdProblem(cwd);
    if (problem) throw RequestError.invalidParams({ cwd }, problem);
    try {
      return projects.engineFor(cwd);
    } catch (err) {
      throw asRequestError(err);
    }
  };
  const sessionEngine = (sessionId: string): Engine => {
    const engine = opened.get(sessionId);
    if (!engine) throw RequestError.invalidParams({ sessionId }, `No open session "${sessionId}": create it with session/new or open it with session/load first.`);
    return engine;
  };
  /**
   * A prompt to a sub-agent of an open session goes to it through `sendToSession`: queued for
   * its next turn boundary while it runs, or continuing it once finished (its new result goes to
   * its parent). Answered at once; the child's work shows on its task call as before.
   */
  const steerChild = (sessionId: string, prompt: readonly ContentBlock[]): { stopReason: 'end_turn' } | undefined => {
    if (opened.has(sessionId)) return undefined;
    const row = projects.store.getSession(sessionId);
    const engine = row?.parent_id ? opened.get(rootOf(projects, row).id) : undefined;
    if (!row || !engine) return undefined;
    const text = promptText(prompt);
    if (!text.trim()) throw RequestError.invalidParams(undefined, 'The prompt has no text.');
    guard(() => engine.sendToSession(row.id, text));
    return { stopReason: 'end_turn' };
  };
  /** The session's permission mode and the ones it can switch to (`session/set_mode`). */
  const modes = (engine: Engine, row: SessionRow): SessionModeState => ({
    currentModeId: engine.permissionMode(row.id),
    availableModes: PERMISSION_MODES.map((id) => ({ id, name: id, description: MODE_DESCRIPTIONS[id] })),
  });
  /** The model (the editor's model picker; `acp -m` sets the default) and the primary agent as session options. */
  const configOptions = (engine: Engine, row: SessionRow): SessionConfigOption[] => {
    const models = [...new Set([row.model, ...Object.values(MODEL_ALIASES)])];
    return [
      {
        id: MODEL_OPTION,
        name: 'Model',
        category: 'model',
        type: 'select',
        currentValue: row.model,
        options: models.map((m) => ({ value: m, name: m })),
      },
      {
        id: AGENT_OPTION,
        name: 'Agent',
        type: 'select',
        currentValue: row.agent,
        options: engine.primaryAgents().map((a) => ({ value: a.name, name: a.name, ...(a.description ? { description: a.description } : {}) })),
      },
    ];
  };
  const requireCredentials = (cwd: string) => {
    if (!projects.hasCredentials(cwd)) throw new RequestError(-32000, NO_CREDENTIALS_MESSAGE);
  };
  /**
   * The editor's command menu for a session. Sent once the session/new or session/load answer
   * is out (the SDK writes it when the handler returns, before the next macrotask), so the
   * editor knows the session id the update is for.
   */
  const announceCommands = (sessionId: string, engine: Engine) => {
    setImmediate(() => bridge.send(sessionId, { sessionUpdate: 'available_commands_update', availableCommands: availableCommands(engine) }));
  };
  const activity = new SessionActivity();
  /** /undo, /redo or /rewind: carried out here, answered as the agent's message, never sent to the model. */
  const runCommand = async (engine: Engine, sessionId: string, command: CheckpointCommand): Promise<{ stopReason: 'end_turn' }> => {
    const refusal = activity.commandRefusal(sessionId, command.name, engine.isRunning(sessionId));
    if (refusal) throw RequestError.invalidParams({ sessionId }, refusal);
    let reply: string;
    try {
      reply = await activity.duringCommand(sessionId, command.name, () => runCheckpointCommand(engine, sessionId, command));
    } catch (err) {
      throw asRequestError(err);
    }
    bridge.send(sessionId, { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: reply } });
    await bridge.flushed();
    return { stopReason: 'end_turn' };
  };

  const app: AgentApp = agent({ name: 'opencode-ink' })
    .onRequest('initialize', ({ params }) => {
      bridge.setClientCapabilities(params.clientCapabilities);
      const keyed = projects.hasCredentials(process.cwd());
      return {
        protocolVersion: PROTOCOL_VERSION,
        agentCapabilities: {
          loadSession: true,
          promptCapabilities: { embeddedContext: true, image: true },
          sessionCapabilities: { list: {} },
        },
        agentInfo: { name: 'opencode-ink', title: 'opencode-ink', version: options.version },
        // Only a key in the environment or config authenticates: say how, when there is none.
        authMethods: keyed ? [] : [{ id: AUTH_METHOD_ID, name: 'Anthropic API key', description: NO_CREDENTIALS_MESSAGE }],
      };
    })
    .onRequest('authenticate', () => {
      if (projects.hasCredentials(process.cwd())) return {};
      throw new RequestError(-32000, NO_CREDENTIALS_MESSAGE);
    })
    .onRequest('session/new', ({ params }) => {
      if (params.mcpServers.length) log(`acp: ignoring ${params.mcpServers.length} MCP server(s) from the editor: MCP servers are not supported yet.`);
      const engine = engineFor(params.cwd);
      requireCredentials(engine.cwd);
      const row = guard(() => engine.createSession());
      opened.set(row.id, engine);
      bridge.open(row.id);
      announceCommands(row.id, engine);
      return { sessionId: row.id, modes: modes(engine, row), configOptions: configOptions(engine, row) };
    })
    .onRequest('session/load', async ({ params }) => {
      const stored = projects.store.getSession(params.sessionId);
      if (!stored) throw RequestError.invalidParams({ sessionId: params.sessionId }, `No session with id "${params.sessionId}".`);
      if (stored.parent_id) {
        throw RequestError.invalidParams({ sessionId: params.sessionId }, `Session "${stored.id}" is a sub-agent's; load its root session "${rootOf(projects, stored).id}" instead.`);
      }
      // The session belongs to the folder it was started in, whatever the editor has open.
      const engine = engineFor(stored.cwd || params.cwd);
      const history = engine.history(stored.id)!;
      opened.set(stored.id, engine);
      bridge.send(stored.id, ...replayUpdates(history.messages, engine.cwd, (sha256) => projects.store.blobs.get(sha256)));
      bridge.open(stored.id);
      await bridge.flushed();
      announceCommands(stored.id, engine);
      return { modes: modes(engine, history.session), configOptions: configOptions(engine, history.session) };
    })
    .onRequest('session/list', ({ params }) => {
      const cwd = params.cwd ?? undefined;
      const sessions = projects.store
        .listRoots()
        .filter((r) => cwd === undefined || r.cwd === cwd)
        .map((r) => ({ sessionId: r.id, cwd: r.cwd, title: r.title, updatedAt: new Date(r.updated_at).toISOString() }));
      return { sessions };
    })
    .onRequest('session/set_mode', ({ params }) => {
      const engine = sessionEngine(params.sessionId);
      const modeId = params.modeId;
      if (!isPermissionMode(modeId)) {
        throw RequestError.invalidParams({ modeId }, `${badModeMessage('modeId', modeId).slice(0, -1)} (the agent is the session option "${AGENT_OPTION}").`);
      }
      // From the next permission check on, for the session's running sub-agents too.
      engine.setPermissionMode(params.sessionId, modeId);
      bridge.send(params.sessionId, { sessionUpdate: 'current_mode_update', currentModeId: modeId });
      return {};
    })
    .onRequest('session/set_config_option', ({ params }) => {
      const engine = sessionEngine(params.sessionId);
      const value = params.value;
      if ((params.configId !== MODEL_OPTION && params.configId !== AGENT_OPTION) || typeof value !== 'string') {
        throw RequestError.invalidParams(
          { configId: params.configId },
          `Unknown session option "${params.configId}": the options are "${MODEL_OPTION}" (a model name) and "${AGENT_OPTION}" (a primary agent).`,
        );
      }
      const row = guard(() => (params.configId === AGENT_OPTION ? engine.setAgent(params.sessionId, value) : engine.setModel(params.sessionId, value)));
      return { configOptions: configOptions(engine, row) };
    })
    .onRequest('session/prompt', async ({ params }) => {
      // A sub-agent's id (from its task call's rawOutput): the message steers it (DESIGN §23).
      const steered = steerChild(params.sessionId, params.prompt);
      if (steered) return steered;
      const engine = sessionEngine(params.sessionId);
      const command = checkpointCommand(promptText(params.prompt, engine.cwd));
      if (command) return runCommand(engine, params.sessionId, command);
      const refusal = activity.promptRefusal(params.sessionId);
      if (refusal) throw RequestError.invalidParams({ sessionId: params.sessionId }, refusal);
      requireCredentials(engine.cwd);
      const images = promptImages(params.prompt, engine.cwd);
      const text = promptText(params.prompt, engine.cwd);
      if (!text.trim() && !images.length) throw RequestError.invalidParams(undefined, 'The prompt has no text.');
      let outcome: TurnOutcome;
      bridge.turnStarted(params.sessionId);
      try {
        // Pictures are checked, scaled and stored by the core, as `@shot.png` is (DESIGN §22).
        outcome = await activity.duringTurn(params.sessionId, () => engine.prompt(params.sessionId, text, { images }));
      } catch (err) {
        throw asRequestError(err);
      }
      // Every update of the turn reaches the editor before the turn's answer.
      await bridge.flushed();
      if (outcome.status === 'failed') throw RequestError.internalError(undefined, outcome.error ?? 'The turn failed.');
      return { stopReason: stopReason(outcome, bridge.lastModelStop(params.sessionId)) };
    })
    .onNotification('session/cancel', ({ params }) => {
      // Cancels the turn, its sub-agents and their processes (through the session's signal).
      opened.get(params.sessionId)?.cancel(params.sessionId);
    });

  // Requests are handled from the next tick on, once the bridge below exists.
  const connection: AgentConnection = app.connect(stream);
  const bridge: Bridge = new Bridge({ client: connection.client, store: projects.store, log });
  projects.onEngine((engine) => bridge.track(engine));
  try {
    await connection.closed;
  } finally {
    // The editor went away: stop every turn and let their processes be killed before exiting.
    for (const engine of projects.all()) engine.cancelAll();
    await settledWithin(
      [...opened].map(([id, engine]) => engine.settled(id)),
      SHUTDOWN_WAIT_MS,
    );
    projects.close();
  }
}

/**
 * The text the model gets: text blocks, then embedded resources and links as context. Given
 * the project folder, the blocks `promptImages` takes as pictures are left out.
 */
export function promptText(blocks: readonly ContentBlock[], cwd?: string): string {
  const text: string[] = [];
  const context: string[] = [];
  for (const block of blocks) {
    if (cwd !== undefined && isPromptImage(block, cwd)) continue;
    switch (block.type) {
      case 'text':
        text.push(block.text);
        break;
      case 'resource':
        if ('text' in block.resource) context.push(`<context uri="${block.resource.uri}">\n${block.resource.text}\n</context>`);
        else context.push(`<context uri="${block.resource.uri}">(binary content not included)</context>`);
        break;
      case 'resource_link':
        context.push(`<context uri="${block.uri}" name="${block.name}">(referenced; read it with your tools if needed)</context>`);
        break;
      default:
        break;
    }
  }
  return [text.join(''), ...context].filter((s) => s.length > 0).join('\n\n');
}

async function settledWithin(work: Array<Promise<void>>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)));
  await Promise.race([Promise.all(work), deadline]);
  clearTimeout(timer);
}

function rootOf(projects: Projects, row: SessionRow): SessionRow {
  let current = row;
  for (let i = 0; i < 64 && current.parent_id; i++) {
    const parent = projects.store.getSession(current.parent_id);
    if (!parent) break;
    current = parent;
  }
  return current;
}

function guard<T>(fn: () => T): T {
  try {
    return fn();
  } catch (err) {
    throw asRequestError(err);
  }
}

/** A core error as a JSON-RPC error the editor can show: bad input is invalid params. */
/**
 * Why `cwd` cannot be a session's folder, or undefined. ACP requires an absolute path: a
 * relative one would be resolved against wherever this process started, and every tool of
 * the session would run there.
 */
function cwdProblem(cwd: string): string | undefined {
  const shown = JSON.stringify(cwd);
  if (!isAbsolute(cwd)) return `The session folder ${shown} is not an absolute path; ACP sessions need the project's absolute path.`;
  try {
    if (!statSync(cwd).isDirectory()) return `The session folder ${shown} is not a folder.`;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    return code === 'ENOENT' ? `The session folder ${shown} does not exist.` : `The session folder ${shown} cannot be opened (${code ?? errorMessage(err)}).`;
  }
  return undefined;
}

function asRequestError(err: unknown): RequestError {
  if (err instanceof RequestError) return err;
  if (err instanceof ConfigError || err instanceof UserFacingError) return RequestError.invalidParams(undefined, err.message);
  return RequestError.internalError(undefined, errorMessage(err));
}

