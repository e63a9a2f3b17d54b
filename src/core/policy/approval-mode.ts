export const APPROVAL_MODES = ["never", "on-request", "auto-edit", "auto", "yolo"] as const;
export type ApprovalMode = (typeof APPROVAL_MODES)[number];

export function isApprovalMode(value: string): value is ApprovalMode {
  return (APPROVAL_MODES as readonly string[]).includes(value);
}
