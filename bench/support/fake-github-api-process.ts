/**
 * The GitHub stand-in (`start-fake-github-api.ts`) in a process of its own, for a bench that
 * counts only its own process's CPU. Started with `node --import tsx`; prints its URL as the
 * first line of stdout and serves until killed.
 */
import { startFakeGitHubApi } from "./start-fake-github-api.js";

const github = await startFakeGitHubApi({ permission: "write", configYaml: "" });
process.stdout.write(`${github.url}\n`);
