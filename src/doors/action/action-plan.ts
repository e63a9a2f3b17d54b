import type { ConversationMode } from "../github/commands/conversation-mode.js";
import type { ModeCommandKind } from "../github/commands/parse-command.js";
import type { GitHubJob } from "../github/jobs/github-job.js";

/** Where the command comment is: on the conversation tab, or in a review thread on a line. */
export type CommentPlace = "issue-comment" | "review-comment";

export interface Actor {
  readonly login: string;
  readonly type?: string | undefined;
}

/** What the step will do, decided from the mode input and the event before anything is called. */
export type ActionPlan =
  | { readonly kind: "skip"; readonly reason: string }
  | { readonly kind: "run"; readonly prompt: string }
  | {
      readonly kind: "reply";
      readonly number: number;
      readonly text: string;
      readonly requester: Actor;
      readonly commentId?: number;
      /** Where the reply goes: a review comment is answered in its thread. Default: the conversation. */
      readonly commentPlace?: CommentPlace;
      /** `pause`, `resume`, `ignore`: labels to change first; the reply then says what changed. */
      readonly modeChange?: { readonly command: ModeCommandKind; readonly current: ConversationMode };
    }
  | {
      readonly kind: "job";
      readonly job: GitHubJob;
      readonly requester: Actor;
      /** Writes (fix, plan, request) need the requester to have write access; a review only reads. */
      readonly needsWriteAccess: boolean;
      readonly commentId?: number;
      /** Where the progress comment goes: a review comment is answered in its thread. */
      readonly commentPlace?: CommentPlace;
    };

export type ActionPlanResult =
  | { readonly success: true; readonly value: ActionPlan }
  | { readonly success: false; readonly error: string };

export interface ActionEvent {
  readonly name: string;
  readonly payload: unknown;
  readonly owner: string;
  readonly repo: string;
}

export const APP_SLUG = "agentforge";

export function success(value: ActionPlan): ActionPlanResult {
  return { success: true, value };
}

export function failure(error: string): ActionPlanResult {
  return { success: false, error };
}
