import { z } from "zod";

const serverName = z.string().regex(/^[A-Za-z0-9_-]{1,32}$/, "use 1-32 letters, digits, _ or -");

const mcpServer = z.union([
  z.strictObject({
    command: z.string().min(1),
    args: z.array(z.string()).default([]),
    env: z.record(z.string(), z.string()).default({}),
    read_only: z.boolean().default(false),
    startup_timeout_ms: z.number().int().positive().max(120_000).default(10_000),
  }),
  z.strictObject({
    url: z.url(),
    headers: z.record(z.string(), z.string()).default({}),
    read_only: z.boolean().default(false),
    startup_timeout_ms: z.number().int().positive().max(120_000).default(10_000),
  }),
]);

const subagent = z.strictObject({
  name: z.string().regex(/^[a-z][a-z0-9_]{0,40}$/, "use lower-case letters, digits and _"),
  description: z.string().min(1).max(300),
  instructions: z.string().min(1),
  tools: z
    .array(z.enum(["read_file", "list_dir", "glob", "grep", "shell"]))
    .default(["read_file", "list_dir", "glob", "grep"]),
  max_turns: z.number().int().min(1).max(50).default(12),
  timeout_ms: z.number().int().positive().max(3_600_000).default(300_000),
});

const price = z.strictObject({
  input_per_million: z.number().nonnegative(),
  output_per_million: z.number().nonnegative(),
  cached_input_per_million: z.number().nonnegative().optional(),
});

/** The operator's file (AGENTFORGE_CONFIG or --config). Never read from the repository under change. */
export const operatorConfigSchema = z.strictObject({
  model: z.string().min(1).optional(),
  fallback_models: z.array(z.string().min(1)).default([]),
  /** Models a person may choose for one task (`fix this with <model>`), besides the model and its fallbacks. */
  allowed_models: z.array(z.string().min(1)).default([]),
  prices: z.record(z.string(), price).default({}),
  context_window: z.number().int().min(1_000).max(10_000_000).optional(),
  /** Cap on one answer's tokens (sent as max_tokens); default: an eighth of the window, at most 4,096. */
  max_output_tokens: z.number().int().min(16).max(1_000_000).optional(),
  /** Sampling temperature; unset leaves the server's default. */
  temperature: z.number().min(0).max(2).optional(),
  budgets: z
    .strictObject({
      max_turns: z.number().int().min(1).max(500).default(40),
      max_total_tokens: z.number().int().positive().optional(),
      max_cost_usd: z.number().positive().optional(),
      max_wall_clock_ms: z.number().int().positive().optional(),
    })
    .default({ max_turns: 40 }),
  /** Per GitHub App installation and UTC day; each AGENTFORGE_BUDGET_* variable overrides its field. */
  installation_budgets: z
    .strictObject({
      tokens_per_day: z.number().int().positive().optional(),
      cost_usd_per_day: z.number().positive().optional(),
      concurrent_tasks: z.number().int().positive().optional(),
    })
    .default({}),
  timeouts: z
    .strictObject({
      inference_ms: z.number().int().positive().default(300_000),
      http_ms: z.number().int().positive().default(120_000),
      tool_ms: z.number().int().positive().default(120_000),
    })
    .default({ inference_ms: 300_000, http_ms: 120_000, tool_ms: 120_000 }),
  sandbox: z
    .strictObject({
      kind: z.enum(["bwrap", "none"]).optional(),
      env_allowlist: z.array(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/)).default([]),
      command_timeout_ms: z.number().int().positive().default(120_000),
      max_output_bytes: z.number().int().positive().default(1_000_000),
    })
    .default({ env_allowlist: [], command_timeout_ms: 120_000, max_output_bytes: 1_000_000 }),
  allowed_commands: z.array(z.string().min(1)).default([]),
  skill_roots: z.array(z.string().min(1)).default([]),
  mcp_servers: z.record(serverName, mcpServer).default({}),
  subagents: z.array(subagent).default([]),
  hooks: z
    .strictObject({
      /** Commands run in the sandbox after a tool of these names succeeds (e.g. a formatter after edits). */
      after_tool: z
        .array(z.strictObject({ tools: z.array(z.string()).min(1), command: z.string().min(1) }))
        .default([]),
    })
    .default({ after_tool: [] }),
});

export type OperatorConfig = z.infer<typeof operatorConfigSchema>;
export type McpServerConfig = z.infer<typeof mcpServer>;
export type SubagentConfig = z.infer<typeof subagent>;
