import type { ModelClient, ModelRequest, ModelResponse } from "../../../../src/core/model/model-types.js";

export type ReviewerRole = "correctness" | "security" | "tests";

/**
 * A scripted model for the three reviewers: each answers by its role (they run side by side, in
 * any order), from `answers`, which a test may change between reviews. `onAsked` runs when a
 * reviewer asks, before it gets its answer, so a test can act while a review is under way.
 */
export function createReviewerModel(
  answers: Record<ReviewerRole, string>,
  onAsked?: (role: ReviewerRole, signal: AbortSignal | undefined) => Promise<void>,
): ModelClient & { requests: ModelRequest[]; answers: Record<ReviewerRole, string> } {
  const requests: ModelRequest[] = [];
  return {
    model: "reviewers",
    requests,
    answers,
    async complete(request, options): Promise<ModelResponse> {
      requests.push(request);
      const system = String(request.messages[0]?.content ?? "");
      const role: ReviewerRole = system.includes("for security")
        ? "security"
        : system.includes("for tests")
          ? "tests"
          : "correctness";
      await onAsked?.(role, options?.signal);
      return {
        message: { role: "assistant", content: answers[role] },
        finishReason: "stop",
        usage: { promptTokens: 50, completionTokens: 20, totalTokens: 70 },
        model: "reviewers",
        costUsd: 0.002,
        attempts: 1,
      };
    },
  };
}

export function findingsJson(
  findings: readonly { path: string; line: number; title: string; body: string; category?: string }[],
): string {
  const full = findings.map((finding) => ({ severity: "high", category: "correctness", ...finding }));
  return `\`\`\`json\n${JSON.stringify(full)}\n\`\`\``;
}
