import { statusOf, type GitHubRequester } from "../pull-request/github-requester.js";
import type { ModeCommandKind } from "./parse-command.js";

/**
 * `pause`, `resume` and `ignore` are kept as labels on the issue or pull request: GitHub stores
 * them, every webhook and workflow event carries them (no extra request to read), people see and
 * change them, and the App on any machine and the Action read the same state.
 */
export const PAUSED_LABEL = "agentforge: paused";
export const IGNORED_LABEL = "agentforge: ignored";

/**
 * `paused`: nothing automatic (reviews on push) until `resume`; commands still run.
 * `ignored`: nothing at all (automatic reviews, assignments, review requests, commands other than
 * `resume` and `help`) until `resume`.
 */
export type ConversationMode = "active" | "paused" | "ignored";

type Labels = readonly (string | { readonly name?: string | undefined | null })[] | null | undefined;

export function readConversationMode(labels: Labels): ConversationMode {
  const names = new Set(
    (labels ?? []).map((label) => (typeof label === "string" ? label : (label.name ?? "")).toLowerCase()),
  );
  if (names.has(IGNORED_LABEL)) return "ignored";
  if (names.has(PAUSED_LABEL)) return "paused";
  return "active";
}

export interface ModeTarget {
  readonly owner: string;
  readonly repo: string;
  /** The issue or pull request number. */
  readonly number: number;
}

/** The labels a command adds and removes, and the answer that says what changed. */
export function planModeChange(
  command: ModeCommandKind,
  current: ConversationMode,
  mention: string,
): { readonly add: readonly string[]; readonly remove: readonly string[]; readonly reply: string } {
  switch (command) {
    case "pause":
      return {
        add: [PAUSED_LABEL],
        remove: current === "ignored" ? [IGNORED_LABEL] : [],
        reply: `⏸️ Paused: I will not review pushes here automatically until \`${mention} resume\`. Commands addressed to me still run.`,
      };
    case "ignore":
      return {
        add: [IGNORED_LABEL],
        remove: current === "paused" ? [PAUSED_LABEL] : [],
        reply: `🙈 Ignoring this conversation: no automatic reviews, and assignments, review requests and commands here are left alone until \`${mention} resume\`.`,
      };
    case "resume":
      return {
        add: [],
        remove: [
          ...(current === "paused" ? [PAUSED_LABEL] : []),
          ...(current === "ignored" ? [IGNORED_LABEL] : []),
        ],
        reply:
          current === "active"
            ? "▶️ Nothing to resume: I was neither paused nor ignoring this conversation."
            : "▶️ Resumed: automatic reviews and triggers apply here again.",
      };
  }
}

/**
 * Applies a mode command through the labels endpoints: `POST .../issues/{n}/labels` creates a
 * missing label, and removing a label that is already gone (404) leaves the state as asked.
 */
export async function applyModeCommand(
  octokit: GitHubRequester,
  target: ModeTarget,
  command: ModeCommandKind,
  current: ConversationMode,
  mention: string,
): Promise<string> {
  const change = planModeChange(command, current, mention);
  const base = { owner: target.owner, repo: target.repo, issue_number: target.number };
  if (change.add.length > 0)
    await octokit.request("POST /repos/{owner}/{repo}/issues/{issue_number}/labels", {
      ...base,
      labels: [...change.add],
    });
  for (const name of change.remove) {
    try {
      await octokit.request("DELETE /repos/{owner}/{repo}/issues/{issue_number}/labels/{name}", {
        ...base,
        name,
      });
    } catch (error) {
      if (statusOf(error) !== 404) throw error;
    }
  }
  return change.reply;
}

/** What a command may still do in a conversation the app was told to ignore. */
export function isAllowedWhileIgnored(kind: string): boolean {
  return kind === "resume" || kind === "help" || kind === "pause" || kind === "ignore";
}
