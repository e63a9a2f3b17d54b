import path from "node:path";
import { z } from "zod";
import { EXIT_REASONS, type LoopEventType } from "../loop/loop-events.js";
import { APPROVAL_MODES } from "../policy/approval-mode.js";
import { TOOL_ERROR_TYPES } from "../tools/tool-result.js";

export const LOOP_EVENT_TYPES = [
  "state-changed",
  "turn-start",
  "model-call-start",
  "text-delta",
  "model-call-end",
  "model-retry",
  "model-fallback",
  "tool-call-start",
  "tool-call-end",
  "tool-call-refused",
  "usage-updated",
  "loop-detected",
  "context-warning",
  "context-pruned",
  "context-compacted",
  "subagent-start",
  "subagent-end",
  "run-finished",
] as const satisfies readonly LoopEventType[];

// Fails to compile when the loop gains an event this list does not name.
type Missing<All, Listed> = Exclude<All, Listed>;
const everyEventTypeListed: Missing<LoopEventType, (typeof LOOP_EVENT_TYPES)[number]> extends never
  ? true
  : false = true;
void everyEventTypeListed;

/** Written as git prints paths (`src/a.js`), so `./src/a.js` and `src/` compare equal to it. */
const relativePath = z
  .string()
  .min(1)
  .refine((value) => !value.startsWith("/") && !value.split(/[\\/]/).includes(".."), {
    message: "must be a path relative to the workspace, without `..`",
  })
  .transform((value) => path.posix.normalize(value.replaceAll("\\", "/")).replace(/(.)\/$/, "$1"));

const expectSchema = z.strictObject({
  /** Each text must appear in the final answer (case-sensitive). */
  final_answer_contains: z.array(z.string().min(1)).optional(),
  /** Tool error types that must appear in the run's tool results. */
  error_types_seen: z.array(z.enum(TOOL_ERROR_TYPES)).optional(),
  event_types_seen: z.array(z.enum(LOOP_EVENT_TYPES)).optional(),
  exit_reason: z.enum(EXIT_REASONS).optional(),
  /** The exact set of paths added, modified or deleted, compared with the fixture. */
  files_changed: z.array(relativePath).optional(),
  /** Paths (files or folders) of the fixture that must be byte-for-byte as they were. */
  files_unchanged: z.array(relativePath).optional(),
  /** A shell command run afterwards in the workspace, in the sandbox; it must exit 0. */
  command_passes: z.string().min(1).optional(),
  /** Names of tools that must have been refused at least once. */
  tool_refused: z.array(z.string().min(1)).optional(),
});

const modelSchema = z.union(
  [
    z.strictObject({
      script: z.string().min(1),
      /** The model name the client asks for (steps may be tagged with it); default `mock-model`. */
      name: z.string().min(1).optional(),
      fallback_models: z.array(z.string().min(1)).optional(),
    }),
    z.strictObject({ real: z.literal(true), name: z.string().min(1).optional() }),
  ],
  { error: 'must be {"script": "path to a mock script"} or {"real": true}' },
);

export const evalTaskSchema = z.strictObject({
  id: z
    .string()
    .regex(/^[A-Za-z0-9][A-Za-z0-9._-]*$/, "must be letters, digits, `.`, `_` or `-` (it names files)")
    .max(100),
  prompt: z.string().min(1),
  fixture: z.string().min(1),
  model: modelSchema,
  mode: z.enum(["build", "plan"]).optional(),
  approval: z.enum(APPROVAL_MODES).optional(),
  allow: z.array(z.string().min(1)).optional(),
  max_turns: z.number().int().positive().optional(),
  context_window: z.number().int().min(256).optional(),
  /** Milliseconds for the whole task (default 120,000). */
  timeout_ms: z.number().int().positive().optional(),
  expect: expectSchema,
});

export const evalTasksFileSchema = z
  .strictObject({ tasks: z.array(evalTaskSchema).min(1) })
  .superRefine((file, context) => {
    const seen = new Set<string>();
    file.tasks.forEach((task, index) => {
      if (seen.has(task.id))
        context.addIssue({
          code: "custom",
          path: ["tasks", index, "id"],
          message: `"${task.id}" is used by an earlier task; ids must be unique`,
        });
      seen.add(task.id);
    });
  });

export type EvalTaskSpec = z.infer<typeof evalTaskSchema>;
export type EvalExpectations = z.infer<typeof expectSchema>;
export type EvalTasksFile = z.infer<typeof evalTasksFileSchema>;
