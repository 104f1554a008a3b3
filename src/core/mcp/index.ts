// MCP servers (DESIGN §14): configuration shapes, the per-engine manager, and tool naming.
export { MCP_JSON, mcpConfigSchema, mcpServerConfigSchema, mcpJsonServerNames, readMcpJson, type McpServerConfig } from './config.js';
export { DEFAULT_MCP_TIMEOUT_MS, McpManager, type McpManagerOptions, type McpServerState, type McpServerStatus, type SessionMcpServers } from './manager.js';
export { MCP_TOOL_PREFIX, mcpToolName, sanitizeName } from './names.js';
export { mcpStateLines } from './format.js';
