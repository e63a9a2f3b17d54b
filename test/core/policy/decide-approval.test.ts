import { describe, expect, it } from "@jest/globals";
import { APPROVAL_MODES, type ApprovalMode } from "../../../src/core/policy/approval-mode.js";
import {
  decideApproval,
  POLICY_ACTIONS,
  type PolicyAction,
} from "../../../src/core/policy/decide-approval.js";
import type { PolicyDecision } from "../../../src/core/policy/command-classification.js";

const A = "approved";
const R = "rejected";
const C = "needs_confirmation";

/** The documented table, written out independently of the implementation. */
const EXPECTED: Record<PolicyAction, Record<ApprovalMode, PolicyDecision>> = {
  read: { never: A, "on-request": A, "auto-edit": A, auto: A, yolo: A },
  write_inside_workspace: { never: A, "on-request": C, "auto-edit": A, auto: A, yolo: A },
  write_outside_workspace: { never: R, "on-request": R, "auto-edit": R, auto: R, yolo: A },
  shell_safe: { never: A, "on-request": A, "auto-edit": A, auto: A, yolo: A },
  shell_allowlisted: { never: A, "on-request": A, "auto-edit": A, auto: A, yolo: A },
  shell_not_allowlisted: { never: R, "on-request": C, "auto-edit": C, auto: A, yolo: A },
  shell_dangerous: { never: R, "on-request": R, "auto-edit": R, auto: R, yolo: A },
  shell_unparseable: { never: R, "on-request": C, "auto-edit": C, auto: C, yolo: A },
  mcp_read_only: { never: A, "on-request": A, "auto-edit": A, auto: A, yolo: A },
  mcp_mutating: { never: R, "on-request": C, "auto-edit": C, auto: C, yolo: A },
  network: { never: R, "on-request": C, "auto-edit": C, auto: C, yolo: A },
};

describe("decideApproval", () => {
  const cells = POLICY_ACTIONS.flatMap((action) => APPROVAL_MODES.map((mode) => [action, mode] as const));

  it("covers every action and mode", () => {
    expect(cells).toHaveLength(11 * 5);
    expect(Object.keys(EXPECTED).sort()).toEqual([...POLICY_ACTIONS].sort());
  });

  it.each(cells)("%s in %s", (action, mode) => {
    expect(decideApproval(mode, action)).toBe(EXPECTED[action][mode]);
  });

  it("never asks in `never`, and refuses dangerous commands in every mode but yolo", () => {
    for (const action of POLICY_ACTIONS) {
      expect(decideApproval("never", action)).not.toBe(C);
    }
    for (const mode of APPROVAL_MODES.filter((candidate) => candidate !== "yolo")) {
      expect(decideApproval(mode, "shell_dangerous")).toBe(R);
      expect(decideApproval(mode, "write_outside_workspace")).toBe(R);
    }
  });
});
