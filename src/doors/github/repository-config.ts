import { z } from "zod";
import { SEVERITIES } from "../../core/review/index.js";

/** Where the file lives, relative to `.github/`, as Probot's config loader expects it. */
export const REPOSITORY_CONFIG_FILE = "agentforge.yml";
export const REPOSITORY_CONFIG_PATH = `.github/${REPOSITORY_CONFIG_FILE}`;

const commandList = z.array(z.string().trim().min(1).max(500)).max(100);

/**
 * Branch names we push are `<prefix>issue-N`: only characters git and shells take literally,
 * and none of git's forbidden sequences (`..`, `//`, a trailing `.`, `.lock`).
 */
const branchPrefix = z
  .string()
  .max(64)
  .regex(/^[A-Za-z0-9][A-Za-z0-9._/-]*$/)
  .refine(
    (value) =>
      !value.includes("..") && !value.includes("//") && !value.includes(".lock") && !value.endsWith("."),
  );

const reviewSchema = z
  .object({
    auto: z.boolean().default(false),
    drafts: z.boolean().default(false),
    ignore_paths: z.array(z.string().min(1).max(200)).max(100).default([]),
    max_comments: z.number().int().min(1).max(100).default(30),
    /** Findings less severe than this go into one collapsed section of the review, not on lines. */
    min_severity: z.enum(SEVERITIES).optional(),
  })
  .strict();

const triggerSchema = z
  .object({
    label: z.string().trim().min(1).max(50).optional(),
    min_permission: z.enum(["write", "maintain", "admin"]).default("write"),
  })
  .strict();

const ciSchema = z
  .object({
    /** Automatic "fix ci" attempts per pull request of the bot's; 0 turns them off. `fix ci` by a person is not counted. */
    max_fix_attempts: z.number().int().min(0).max(10).default(2),
  })
  .strict();

/** `.github/agentforge.yml`: what a repository may choose. Nothing here can start a process the operator did not allow. */
export const repositoryConfigSchema = z
  .object({
    model: z.string().trim().min(1).max(200).optional(),
    max_turns: z.number().int().min(1).max(200).optional(),
    allowed_commands: commandList.default([]),
    setup_commands: commandList.default([]),
    test_commands: commandList.default([]),
    /** Gitignore patterns of command output left out of fix commits; replaces the default list. */
    build_output: z.array(z.string().trim().min(1).max(200)).max(100).optional(),
    review: reviewSchema.prefault({}),
    branch_prefix: branchPrefix.default("agentforge/"),
    trigger: triggerSchema.prefault({}),
    ci: ciSchema.prefault({}),
    /** Bots whose comments the agent reads (as data); every other bot's comments are left out. */
    allowed_bots: z.array(z.string().trim().min(1).max(100)).max(50).default([]),
  })
  .strict();

export type RepositoryConfig = z.output<typeof repositoryConfigSchema>;

/** What each key expects, in words a person editing the file can act on. */
export const CONFIG_EXPECTATIONS: Readonly<Record<string, string>> = {
  "": "a mapping of keys (model, max_turns, allowed_commands, ...)",
  model: "a model name (a non-empty string)",
  max_turns: "a whole number from 1 to 200",
  allowed_commands: 'a list of command prefixes, e.g. ["npm test"] (at most 100)',
  "allowed_commands.*": "a non-empty command string",
  setup_commands: 'a list of commands, e.g. ["npm ci"] (at most 100)',
  "setup_commands.*": "a non-empty command string",
  test_commands: 'a list of commands, e.g. ["npm test"] (at most 100)',
  "test_commands.*": "a non-empty command string",
  build_output: 'a list of gitignore patterns, e.g. ["__pycache__/", "*.pyc"] (at most 100)',
  "build_output.*": "a gitignore pattern (a non-empty string)",
  review: "a mapping with the keys auto, drafts, ignore_paths, max_comments, min_severity",
  "review.auto": "true or false",
  "review.drafts": "true or false",
  "review.ignore_paths": 'a list of glob patterns, e.g. ["dist/**"]',
  "review.ignore_paths.*": "a glob pattern (a non-empty string)",
  "review.max_comments": "a number ≤ 100 (a whole number, at least 1)",
  "review.min_severity": "one of critical, high, medium, low",
  branch_prefix:
    'letters, digits, ".", "_", "-" and "/" only, starting with a letter or digit, e.g. "agentforge/"',
  trigger: "a mapping with the keys label, min_permission",
  "trigger.label": "a label name (a non-empty string)",
  "trigger.min_permission": "one of write, maintain, admin",
  ci: "a mapping with the key max_fix_attempts",
  "ci.max_fix_attempts": "a whole number from 0 to 10 (0 turns automatic CI fixes off)",
  allowed_bots:
    'a list of bot logins whose comments the agent may read, e.g. ["ci-reporter[bot]"] (at most 50)',
  "allowed_bots.*": "a bot login (a non-empty string)",
};

export function defaultRepositoryConfig(): RepositoryConfig {
  return repositoryConfigSchema.parse({});
}
