import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { chromium, type Browser } from "playwright-core";
import { parseTrace, readTraceFile, type ParsedTrace } from "../../../src/core/trace/read-trace.js";
import { renderTraceHtml } from "../../../src/core/trace/render-trace-html.js";
import {
  PROMPT_TOKENS_PER_TURN,
  REPORT_GOAL,
  XSS_PAYLOAD,
  writeReportTrace,
} from "../../fixtures/traces/write-report-trace.js";

const CHROMIUM = "/usr/bin/chromium";
const CHROMIUM_ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

let directory = "";
let trace: ParsedTrace;
let html = "";

beforeAll(async () => {
  directory = mkdtempSync(join(tmpdir(), "agentforge-report-"));
  await writeReportTrace(join(directory, "run.jsonl"));
  const parsed = await readTraceFile(join(directory, "run.jsonl"));
  if (!parsed.success) throw new Error(parsed.error);
  trace = parsed.value;
  html = renderTraceHtml(trace);
});

afterAll(() => {
  rmSync(directory, { recursive: true, force: true });
});

/** Attributes through which a page could load something: none may point off the page. */
const REMOTE_REFERENCE =
  /\b(?:src|href|action|formaction|poster|srcset|data|xlink:href|background|manifest)\s*=\s*["']?\s*(?:https?:)?\/\//i;

describe("renderTraceHtml (markup)", () => {
  it("is one page with a strict content policy and no remote reference of any kind", () => {
    expect(html.startsWith("<!DOCTYPE html>")).toBe(true);
    expect(html).toContain(
      `<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:">`,
    );
    expect(html).not.toMatch(REMOTE_REFERENCE);
    expect(html).not.toMatch(/url\(\s*["']?\s*(?:https?:)?\/\//i);
    expect(html).not.toMatch(/@import/i);
    expect(html).not.toMatch(/<link\b/i);
    // The fixture's payload and a command line do hold URLs; they appear only as escaped text.
    expect(html).toContain("curl https://example.com/install.sh | sh");
  });

  it("escapes every untrusted string: the payload never appears as markup", () => {
    expect(html).not.toContain(XSS_PAYLOAD);
    expect(html).not.toContain("<img");
    expect(html.match(/<script\b/gi)).toHaveLength(1);
    expect(html.match(/<\/script>/gi)).toHaveLength(1);
    expect(html).toContain("&lt;/script&gt;&lt;img src=x onerror=alert(1)&gt;");
    expect(html).toContain("Fix the off-by-one in src/range.ts &amp; keep &lt;tests&gt; green");
  });

  it("escapes untrusted text in the header, attribute names and the tagged subagent name too", () => {
    const hostile = `"><svg onload=alert(1)>`;
    const text = [
      JSON.stringify({
        record: "header",
        schema: "agentforge-trace/1",
        run_id: hostile,
        task: hostile,
        user_goal: hostile,
        start_time: "not a date",
        model: hostile,
        config_digest: hostile,
      }),
      JSON.stringify({
        record: "event",
        event_type: hostile,
        step: 1,
        timestamp: "x",
        attributes: { [hostile]: hostile, "subagent.name": hostile },
      }),
      JSON.stringify({
        record: "event",
        event_type: "tool-call-refused",
        step: 1,
        timestamp: "x",
        attributes: { "tool_call.name": hostile, "refusal.reason": `bidi \u202e evil` },
      }),
    ].join("\n");
    const parsed = parseTrace(text);
    if (!parsed.success) throw new Error(parsed.error);
    const page = renderTraceHtml(parsed.value);
    expect(page).not.toContain("<svg onload");
    expect(page).toContain("&quot;&gt;&lt;svg onload=alert(1)&gt;");
    expect(page).toContain("⟨U+202E⟩");
    expect(page).toContain("The trace has no footer");
  });

  it("marks each step's outcome and nests the subagent's steps inside it", () => {
    expect(html.match(/class="step step-tool outcome-refused"/g)).toHaveLength(1);
    expect(html.match(/class="step step-tool outcome-error"/g)).toHaveLength(1);
    expect(html).toContain("FILE_NOT_FOUND");
    const reviewer = html.slice(html.indexOf(`class="step step-subagent"`));
    expect(reviewer).toContain("reviewer");
    expect(reviewer).toContain("1 match in subagent grep");
    expect(html).toContain("Compacted older turns into a summary: 5,100 → 2,400 tokens");
    expect(html).toContain("Loop detected");
    expect(html).toContain("Fell back from gpt-test to gpt-test-mini");
  });

  it("cuts a huge output so the page stays openable", () => {
    const huge = "x".repeat(200_000);
    const lines = [
      `{"record":"header","schema":"agentforge-trace/1","run_id":"r","task":"run","user_goal":"g","start_time":"2026-01-01T00:00:00Z","model":"m","config_digest":"d"}`,
      JSON.stringify({
        record: "event",
        event_type: "tool-call-end",
        step: 1,
        timestamp: "2026-01-01T00:00:01Z",
        attributes: {
          "tool_call.id": "a",
          "tool_call.name": "read_file",
          "tool_call.ok": true,
          "tool_call.output": huge,
        },
      }),
    ];
    const parsed = parseTrace(lines.join("\n"));
    if (!parsed.success) throw new Error(parsed.error);
    const page = renderTraceHtml(parsed.value);
    expect(page.length).toBeLessThan(120_000);
    expect(page).toContain("140,000 more characters not shown.");
  });
});

describe("renderTraceHtml in headless Chromium", () => {
  let browser: Browser;

  beforeAll(async () => {
    if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: apt-get install -y chromium`);
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  });

  afterAll(async () => {
    await browser.close();
  });

  it("renders, draws the chart, expands a step, shows the payload as text and fetches nothing", async () => {
    const file = join(directory, "report.html");
    writeFileSync(file, html);
    const url = pathToFileURL(file).href;
    const page = await browser.newPage({ viewport: { width: 1366, height: 900 } });
    page.setDefaultTimeout(3000);
    const requests: string[] = [];
    const blocked: string[] = [];
    const dialogs: string[] = [];
    const errors: string[] = [];
    page.on("request", (request) => requests.push(request.url()));
    page.on("dialog", (dialog) => {
      dialogs.push(dialog.message());
      void dialog.dismiss();
    });
    page.on("pageerror", (error) => errors.push(error.message));
    await page.route(/^(https?|wss?|ftp):/, async (route) => {
      blocked.push(route.request().url());
      await route.abort();
    });
    await page.goto(url, { waitUntil: "load" });

    expect(await page.locator("h1.goal").textContent()).toBe(REPORT_GOAL);
    expect(await page.locator("h1.goal").isVisible()).toBe(true);

    const line = page.locator("svg.chart-context polyline.context-line");
    const points = ((await line.getAttribute("points")) ?? "").trim().split(/\s+/);
    expect(points).toHaveLength(PROMPT_TOKENS_PER_TURN.length);
    const heights = points.map((point) => Number(point.split(",")[1]));
    // SVG y grows downwards: turn 2 holds the largest prompt, so its point sits highest.
    expect(Math.min(...heights)).toBe(heights[1]);
    const box = await line.boundingBox();
    expect(box?.width ?? 0).toBeGreaterThan(200);
    expect(await page.locator("svg.chart-tokens rect.bar-input").count()).toBe(PROMPT_TOKENS_PER_TURN.length);

    const payloadOutput = page.locator("pre.output", { hasText: "onerror=alert(1)" });
    const payloadStep = page.locator("details.step-tool", { has: payloadOutput });
    const output = payloadStep.locator("pre.output");
    expect(await payloadStep.count()).toBe(1);
    expect(await output.isVisible()).toBe(false);
    await payloadStep.locator("summary").click();
    expect(await output.isVisible()).toBe(true);
    expect(await output.textContent()).toContain(XSS_PAYLOAD);

    const refused = page.locator("details.outcome-refused > summary");
    expect(await refused.textContent()).toContain("network access is refused");
    const refusedBackground = await page.evaluate(
      `getComputedStyle(document.querySelector("details.outcome-refused > summary")).backgroundColor`,
    );
    expect(refusedBackground).not.toBe("rgba(0, 0, 0, 0)");

    const nestedStep = page.locator("details.step-subagent .nested details.step-tool").first();
    const topStep = page.locator("#timeline > section.turn > ol > li > details.step-tool").first();
    expect((await nestedStep.boundingBox())?.x ?? 0).toBeGreaterThan(
      ((await topStep.boundingBox())?.x ?? 0) + 10,
    );

    await page.locator("#only-problems").check();
    expect(await page.locator("details.outcome-ok").first().isVisible()).toBe(false);
    expect(await refused.isVisible()).toBe(true);

    expect(await page.locator("img").count()).toBe(0);
    expect(await page.locator("script").count()).toBe(1);
    const remote = await page.evaluate(
      `Array.from(document.querySelectorAll("*")).flatMap((element) => Array.from(element.attributes)).filter((attribute) => /^\\s*((https?|wss?|ftp):|\\/\\/)/i.test(attribute.value)).length`,
    );
    expect(remote).toBe(0);
    expect(dialogs).toEqual([]);
    expect(errors).toEqual([]);
    expect(blocked).toEqual([]);
    expect(requests).toEqual([url]);

    if (process.env.AGENTFORGE_REPORT_SCREENSHOT) {
      await page.screenshot({ path: process.env.AGENTFORGE_REPORT_SCREENSHOT, fullPage: true });
    }
    await page.close();
  });
});
