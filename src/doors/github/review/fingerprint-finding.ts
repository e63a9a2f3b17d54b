import { createHash } from "node:crypto";
import type { Finding } from "../../../core/review/index.js";

const MARKER_PATTERN = /<!-- agentforge:fp=([0-9a-f]{16}) -->/g;

/**
 * Lower case, no digits or punctuation, single spaces: the same finding worded with another line
 * number or another quote mark still matches on a later run.
 */
function normalize(text: string): string {
  return text
    .toLowerCase()
    .replace(/[^\p{L}\s]+/gu, " ")
    .replace(/\s+/g, " ")
    .trim();
}

/** 16 hex digits of sha256 over path, title and body; the line is left out so moved code keeps it. */
export function fingerprintFinding(finding: Pick<Finding, "path" | "title" | "body">): string {
  return createHash("sha256")
    .update(`${finding.path}\n${normalize(finding.title)}\n${normalize(finding.body)}`)
    .digest("hex")
    .slice(0, 16);
}

export function fingerprintMarker(fingerprint: string): string {
  return `<!-- agentforge:fp=${fingerprint} -->`;
}

export function extractFingerprints(text: string): string[] {
  return [...text.matchAll(MARKER_PATTERN)].flatMap((match) => (match[1] === undefined ? [] : [match[1]]));
}
