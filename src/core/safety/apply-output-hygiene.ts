import { randomBytes } from "node:crypto";
import { mkdir, open } from "node:fs/promises";
import { join } from "node:path";
import type { Redactor } from "./create-redactor.js";
import { stripTerminalControls } from "./strip-terminal-controls.js";

export interface OutputHygieneOptions {
  readonly maxChars: number;
  /** Characters kept from the start when cutting; default about half of what fits. */
  readonly headChars?: number;
  /** Characters kept from the end when cutting; default the rest of what fits. */
  readonly tailChars?: number;
  /** Where the full output is saved when it is cut; without it nothing is saved. */
  readonly scratchDir?: string;
  /** Names the saved file, e.g. the tool name and call id. */
  readonly label: string;
  readonly redactor?: Redactor;
}

export interface OutputHygieneResult {
  readonly text: string;
  readonly truncated: boolean;
  readonly omittedChars: number;
  readonly fullOutputPath?: string;
}

const PRIVATE_FILE_MODE = 0o600;
const PRIVATE_DIRECTORY_MODE = 0o700;
/** A cut moves back to a line start if one is this close, so lines are not split needlessly. */
const LINE_SNAP_FRACTION = 0.2;

/** A file name from a label: letters, digits, dot, dash, underscore; never hidden, never a path. */
export function safeFileStem(label: string): string {
  const stem = label
    .replace(/[^A-Za-z0-9._-]+/g, "-")
    .replace(/\.{2,}/g, ".")
    .replace(/^[.-]+/, "")
    .replace(/-+$/, "")
    .slice(0, 60);
  return stem.length > 0 ? stem : "output";
}

function omissionLine(omitted: number, path: string | undefined): string {
  const where = path === undefined ? "" : `; full output saved at ${path}`;
  return `\n[… ${omitted} characters omitted${where} …]\n`;
}

async function saveFullOutput(scratchDir: string, label: string, text: string): Promise<string> {
  await mkdir(scratchDir, { recursive: true, mode: PRIVATE_DIRECTORY_MODE });
  const path = join(scratchDir, `${safeFileStem(label)}-${randomBytes(4).toString("hex")}.txt`);
  // "wx": never write through a file or symlink that is already there.
  const handle = await open(path, "wx", PRIVATE_FILE_MODE);
  try {
    await handle.writeFile(text, "utf8");
  } finally {
    await handle.close();
  }
  return path;
}

function headEnd(text: string, budget: number): number {
  if (budget <= 0) return 0;
  const snap = text.lastIndexOf("\n", budget - 1);
  return snap !== -1 && snap >= budget * (1 - LINE_SNAP_FRACTION) ? snap + 1 : budget;
}

function tailStart(text: string, budget: number): number {
  const hard = text.length - budget;
  const snap = text.indexOf("\n", hard);
  return snap !== -1 && snap - hard <= budget * LINE_SNAP_FRACTION ? snap + 1 : hard;
}

/**
 * Makes command or tool output fit for the model: terminal controls removed, credentials
 * redacted over the whole text first (so no cut can expose half a key), then, if still too long,
 * head and tail kept with a line saying how much was left out and where the whole is saved.
 */
export async function applyOutputHygiene(
  text: string,
  options: OutputHygieneOptions,
): Promise<OutputHygieneResult> {
  const cleaned = stripTerminalControls(text);
  const full = options.redactor === undefined ? cleaned : options.redactor.redact(cleaned);
  if (full.length <= options.maxChars) return { text: full, truncated: false, omittedChars: 0 };

  const path =
    options.scratchDir === undefined
      ? undefined
      : await saveFullOutput(options.scratchDir, options.label, full);
  // Size the marker for the largest possible count so the result never exceeds maxChars.
  const markerLength = omissionLine(full.length, path).length;
  const budget = Math.max(0, options.maxChars - markerLength);
  const headBudget = Math.min(options.headChars ?? Math.ceil(budget / 2), budget);
  const tailBudget = Math.min(options.tailChars ?? budget - headBudget, budget - headBudget);
  const head = full.slice(0, headEnd(full, headBudget));
  const tail = tailBudget > 0 ? full.slice(tailStart(full, tailBudget)) : "";
  const omitted = full.length - head.length - tail.length;
  return {
    text: `${head}${omissionLine(omitted, path)}${tail}`,
    truncated: true,
    omittedChars: omitted,
    ...(path === undefined ? {} : { fullOutputPath: path }),
  };
}
