import { stripVTControlCharacters } from "node:util";

/**
 * Operating system commands (OSC: titles, OSC 8 hyperlinks, clipboard writes) and device control
 * strings (DCS, SOS, PM, APC: sixel images, tmux passthrough) are dropped whole, up to their
 * terminator (BEL, ESC \\ or ST) or to the end when cut off. Node's stripper leaves some of their
 * payloads behind. The bodies are matched without laziness so unterminated strings stay linear.
 */
// eslint-disable-next-line no-control-regex
const CONTROL_STRING = /(?:\x1b[\]PX^_]|[\x90\x98\x9d\x9e\x9f])[^\x07\x1b\x9c]*(?:\x07|\x1b\\|\x9c)?/g;

// eslint-disable-next-line no-control-regex
const ANY_CONTROL = /[\x00-\x08\x0b-\x1f\x7f-\x9f]/;

// eslint-disable-next-line no-control-regex
const OTHER_CONTROLS = /[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]/g;

/** Overstrike as `man` and old pagers print it: `X\bX` is bold X, `_\bX` is underlined X. */
// eslint-disable-next-line no-control-regex
const OVERSTRIKE = /[^\n\x08]\x08/g;

/**
 * Terminal output as a person would have read it on screen: colours, cursor moves, titles and
 * hyperlinks (OSC 8 keeps its visible text) removed; `\r\n` becomes `\n`; a line rewritten with
 * `\r` (progress bars) keeps only its last non-empty state; other control characters go, except
 * tab and newline.
 */
export function stripTerminalControls(text: string): string {
  // Every rule below starts at a control character other than tab and newline (ESC, CSI, C1, BS,
  // CR, ...): text without one, most tool output, is already what a person would have seen.
  if (!ANY_CONTROL.test(text)) return text;
  const withoutEscapes = stripVTControlCharacters(text.replace(CONTROL_STRING, ""));
  let withoutOverstrike = withoutEscapes;
  for (let pass = 0; pass < 4 && withoutOverstrike.includes("\b"); pass += 1) {
    withoutOverstrike = withoutOverstrike.replace(OVERSTRIKE, "");
  }
  const lines = withoutOverstrike.replace(/\r\n/g, "\n").split("\n");
  const settled = lines.map((line) => {
    if (!line.includes("\r")) return line;
    const states = line.split("\r").filter((state) => state.length > 0);
    return states[states.length - 1] ?? "";
  });
  return settled.join("\n").replace(OTHER_CONTROLS, "");
}
