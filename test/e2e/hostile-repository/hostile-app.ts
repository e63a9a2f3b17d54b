import { randomUUID } from "node:crypto";
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  realpathSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { homedir, tmpdir } from "node:os";
import path from "node:path";
import { parseMockScript } from "../../../src/mock-model/mock-script.js";
import type { RecordedRequest } from "../../../src/mock-model/start-mock-model-server.js";
import { REDIS_URL, removeKeys } from "../../queue/bullmq/redis-test-helpers.js";
import { sendSignedWebhook } from "../../support/github-stand-in/send-signed-webhook.js";
import {
  startGitHubStandIn,
  userOf,
  type GitHubStandIn,
} from "../../support/github-stand-in/start-github-stand-in.js";
import type { StandInPull } from "../../support/github-stand-in/stand-in-state.js";
import { waitFor } from "../support/run-cli.js";
import { findLogRecords, startAppProcess, type AppProcess } from "../github-app/app-processes.js";
import { issueCommentPayload, OWNER, privateKey, REPO } from "../github-app/app-fixture.js";
import {
  filesMentioning,
  listFolders,
  readCommitFiles,
  snapshotFolder,
  type CommitFile,
  type FolderSnapshot,
} from "./host-evidence.js";
import { pushHostileProject } from "./hostile-project.js";
import { createPlantedSecrets, redisUrlWithPassword, type PlantedSecrets } from "./planted-secrets.js";
import { startGatedModel, type GatedModel } from "./gated-model.js";

/** What the host held of one task at one moment of its run. */
export interface TaskView {
  readonly workTree: string;
  readonly gitDirectory: string;
  readonly git: FolderSnapshot;
  readonly tree: FolderSnapshot;
  readonly mirror: FolderSnapshot;
  /** Git metadata files (not the index or objects, which list paths) naming the planted program. */
  readonly gitMentionsPlanted: readonly string[];
}

/** The task folder as the stand-in's pre-receive hook copied it, while the App pushed. */
export interface PushCopy {
  readonly git: FolderSnapshot;
  readonly gitDirectory: string;
  readonly workTree: string;
  /** What the push asked for: `<old> <new> <ref>` lines. */
  readonly refUpdates: string;
  readonly gitMentionsPlanted: readonly string[];
}

export interface AppRun {
  readonly issue: number;
  /** The progress comment's last text. */
  readonly progress: string;
  readonly branch: string;
  readonly branchSha: string | null;
  /** The files of the pushed branch, by path; empty when nothing was pushed. */
  readonly pushedFiles: ReadonlyMap<string, CommitFile>;
  readonly pull: StandInPull | undefined;
  readonly atFirstRequest: TaskView;
  readonly atLastRequest: TaskView;
  readonly atPush: PushCopy | null;
  readonly mirrorAfter: FolderSnapshot;
  /** Task folders still on disk after the task finished. */
  readonly leftoverTaskFolders: readonly string[];
  readonly traceText: string;
  readonly modelRequests: readonly RecordedRequest[];
}

export interface HostileApp {
  readonly github: GitHubStandIn;
  readonly markers: string;
  readonly secrets: PlantedSecrets;
  readonly baseSha: string;
  /** The files of the hostile project as committed on the default branch. */
  readonly baseFiles: ReadonlyMap<string, CommitFile>;
  readonly bareDir: string;
  readonly workerDataDir: string;
  readonly processes: readonly AppProcess[];
  runIssue(options: {
    readonly title: string;
    readonly command: string;
    readonly steps: unknown[];
  }): Promise<AppRun>;
  close(): Promise<void>;
}

const IGNORED_FOR_MENTIONS = /^(index|objects\/)/;

function gitMentions(gitDirectory: string): string[] {
  return filesMentioning(gitDirectory, ["planted", "mark.sh"]).filter(
    (file) => !IGNORED_FOR_MENTIONS.test(file),
  );
}

/** The stand-in's own hook (test code): copies the App's task folder as it is when the App pushes. */
function prereceiveHook(workspaces: string, copies: string): string {
  return `#!/bin/sh
dest='${copies}'/push-$(date +%s%N)
mkdir -p "$dest"
cat > "$dest/ref-updates"
for task in '${workspaces}'/task-*; do cp -a "$task" "$dest/"; done
exit 0
`;
}

/**
 * The App as deployed with a Redis queue: `agentforge serve` takes webhooks in, one
 * `agentforge worker` runs the tasks in bubblewrap, both with the App's private key, the model
 * key, the webhook secret and a Redis URL holding a password. The GitHub stand-in serves the
 * hostile project; the model is scripted per case behind a gate.
 */
export async function startHostileApp(): Promise<HostileApp> {
  // The App's data folder outside /tmp, as a deployment has it (/var/lib/…): under /tmp it would
  // lie inside every sandbox's private /tmp, which changes what a command there sees and can do.
  const cacheRoot = hostileCacheRoot();
  mkdirSync(cacheRoot, { recursive: true });
  const root = mkdtempSync(path.join(cacheRoot, "app-"));
  const markers = mkdtempSync(path.join(tmpdir(), "hostile-markers-"));
  const copies = path.join(root, "push-copies");
  mkdirSync(copies);
  const secrets = createPlantedSecrets(privateKey);
  const redisUrl = redisUrlWithPassword(REDIS_URL, secrets.redisPassword);
  const prefix = `hostile-${randomUUID().slice(0, 8)}`;
  const started: AppProcess[] = [];
  let github: GitHubStandIn | undefined;
  let gate: GatedModel | undefined;
  const close = async (): Promise<void> => {
    for (const running of started) running.cli.killHard();
    await Promise.all(started.map((running) => running.cli.exited));
    await gate?.close();
    await github?.close();
    await removeKeys(prefix);
    rmSync(root, { recursive: true, force: true });
    rmSync(markers, { recursive: true, force: true });
  };
  try {
    github = await startGitHubStandIn({
      repositories: [{ owner: OWNER, name: REPO, files: { "README.md": "placeholder\n" } }],
      permissions: { alice: "write" },
    });
    const bareDir = github.repository(OWNER, REPO).bareDir;
    const standInPort = Number(github.host.split(":")[1]);
    const redisPort = Number(new URL(REDIS_URL).port || "6379");
    const baseSha = pushHostileProject(bareDir, { markers, hostPorts: [redisPort, standInPort] });
    const workerDataDir = path.join(root, "worker");
    const workspaces = path.join(workerDataDir, "cache", "workspaces");
    const mirrors = path.join(workerDataDir, "cache", "mirrors");
    writeFileSync(path.join(bareDir, "hooks", "pre-receive"), prereceiveHook(workspaces, copies));
    chmodSync(path.join(bareDir, "hooks", "pre-receive"), 0o755);
    gate = await startGatedModel();

    const env = (name: string): NodeJS.ProcessEnv => {
      const dataDir = path.join(root, name);
      mkdirSync(dataDir, { recursive: true });
      return {
        APP_ID: "1",
        PRIVATE_KEY: secrets.privateKey,
        WEBHOOK_SECRET: secrets.webhookSecret,
        PORT: "0",
        HOST: "127.0.0.1",
        GHE_HOST: github!.host,
        GHE_PROTOCOL: "http",
        LOG_LEVEL: "info",
        LOG_FORMAT: "json",
        OPENAI_BASE_URL: gate!.url,
        OPENAI_API_KEY: secrets.openAiKey,
        AGENTFORGE_MODEL: "gpt-4.1-mini",
        AGENTFORGE_DATA_DIR: dataDir,
        AGENTFORGE_QUEUE_LEASE_MS: "15000",
        // Every turn stores the run with the task: the host's git diffs the hostile work tree each turn.
        AGENTFORGE_HANDOFF_INTERVAL_MS: "0",
        REDIS_URL: redisUrl,
        AGENTFORGE_QUEUE_PREFIX: prefix,
        HOSTILE_CANARY: secrets.canaryVariable,
        NODE_ENV: "test",
      };
    };
    mkdirSync(workerDataDir, { recursive: true });
    writeFileSync(path.join(workerDataDir, "canary.txt"), `${secrets.canaryFile}\n`);
    const [serve, worker] = await Promise.all([
      startAppProcess("serve", "serve", env("serve")).then((running) => (started.push(running), running)),
      startAppProcess("worker", "worker", env("worker")).then((running) => (started.push(running), running)),
    ]);
    const standIn = github;
    const model = gate;
    const repository = () => standIn.repository(OWNER, REPO);
    let deliveries = 0;

    const view = (): TaskView => {
      const [task, ...others] = listFolders(workspaces, "task-");
      if (task === undefined || others.length > 0)
        throw new Error(`expected one task folder in ${workspaces}, found ${others.length + (task ? 1 : 0)}`);
      const [mirror] = listFolders(mirrors, "");
      const gitDirectory = path.join(task, "git");
      return {
        workTree: path.join(task, "tree"),
        gitDirectory,
        git: snapshotFolder(gitDirectory),
        tree: snapshotFolder(path.join(task, "tree")),
        mirror: mirror === undefined ? {} : snapshotFolder(mirror),
        gitMentionsPlanted: gitMentions(gitDirectory),
      };
    };

    const readPushCopy = (before: ReadonlySet<string>): PushCopy | null => {
      const made = readdirSync(copies).filter((name) => !before.has(name));
      if (made.length === 0) return null;
      if (made.length > 1) throw new Error(`the App pushed ${made.length} times in one task`);
      const folder = path.join(copies, made[0]!);
      const [task] = listFolders(folder, "task-");
      if (task === undefined) throw new Error(`the push copy ${folder} holds no task folder`);
      const gitDirectory = path.join(task, "git");
      return {
        git: snapshotFolder(gitDirectory),
        gitDirectory,
        workTree: path.join(task, "tree"),
        refUpdates: readFileSync(path.join(folder, "ref-updates"), "utf8"),
        gitMentionsPlanted: gitMentions(gitDirectory),
      };
    };

    // A fix's trace is kept with its task record; a plan's (which is never resumed) with its run.
    const tasksDir = path.join(workerDataDir, "tasks");
    const runsDir = path.join(workerDataDir, "runs");
    const listTraces = (): string[] => [
      ...(existsSync(tasksDir)
        ? readdirSync(tasksDir)
            .filter((name) => name.endsWith(".trace.jsonl"))
            .map((name) => path.join(tasksDir, name))
        : []),
      ...(existsSync(runsDir)
        ? readdirSync(runsDir)
            .map((name) => path.join(runsDir, name, "trace.jsonl"))
            .filter((file) => existsSync(file))
        : []),
    ];

    return {
      github: standIn,
      markers,
      secrets,
      baseSha,
      baseFiles: readCommitFiles(bareDir, baseSha),
      bareDir,
      workerDataDir,
      processes: [serve, worker],
      close,
      async runIssue(options) {
        const parsed = parseMockScript({ steps: options.steps });
        if (!parsed.success) throw new Error(parsed.error);
        const last = options.steps.length;
        let atFirstRequest: TaskView | undefined;
        let atLastRequest: TaskView | undefined;
        await model.load(parsed.value, (requestNumber) => {
          if (requestNumber === 1) atFirstRequest = view();
          if (requestNumber === last) atLastRequest = view();
        });
        const copiesBefore = new Set(readdirSync(copies));
        const tracesBefore = new Set(listTraces());
        const finishedBefore = findLogRecords(worker, "task finished").length;
        const issue = standIn.addIssue(OWNER, REPO, { title: options.title, body: "", author: "alice" });
        const commentId = standIn.addComment(OWNER, REPO, issue, options.command, "alice");
        deliveries += 1;
        const response = await sendSignedWebhook({
          url: `${serve.url}/api/github/webhooks`,
          secret: secrets.webhookSecret,
          event: "issue_comment",
          deliveryId: `hostile-${prefix}-${deliveries}`,
          payload: issueCommentPayload({
            issueNumber: issue,
            commentId,
            body: options.command,
            login: "alice",
            userId: userOf("alice").id,
          }),
        });
        if (response.status >= 300) throw new Error(`the webhook was answered ${response.status}`);
        await waitFor(
          () => findLogRecords(worker, "task finished").length > finishedBefore,
          `the worker to finish issue #${issue}`,
          60_000,
        );
        const hookError = model.hookError();
        if (hookError !== undefined)
          throw hookError instanceof Error
            ? hookError
            : new Error(`a model hook failed: ${JSON.stringify(hookError)}`);
        if (atFirstRequest === undefined || atLastRequest === undefined)
          throw new Error(
            `issue #${issue}: the model was asked ${model.requests().length} times, the script has ${last} steps`,
          );
        const progress = repository()
          .comments.filter((comment) => comment.issueNumber === issue && comment.user.type === "Bot")
          .map((comment) => comment.body)
          .join("\n");
        const branch = `agentforge/issue-${issue}`;
        const branchSha = standIn.branchSha(OWNER, REPO, branch);
        const traces = listTraces().filter((name) => !tracesBefore.has(name));
        return {
          issue,
          progress,
          branch,
          branchSha,
          pushedFiles: branchSha === null ? new Map() : readCommitFiles(bareDir, branchSha),
          pull: [...repository().pulls.values()].find((pull) => pull.head === branch),
          atFirstRequest,
          atLastRequest,
          atPush: readPushCopy(copiesBefore),
          mirrorAfter: snapshotFolder(listFolders(mirrors, "")[0] ?? path.join(mirrors, "none")),
          leftoverTaskFolders: listFolders(workspaces, "task-"),
          traceText: traces.map((file) => readFileSync(file, "utf8")).join("\n"),
          modelRequests: [...model.requests()],
        };
      },
    };
  } catch (error) {
    await close();
    throw error;
  }
}

/**
 * Where the App's data lives in this suite: never under a folder the sandbox replaces with its
 * own private one (/tmp, /var/tmp, /dev/shm). There, the parents of the read-only mounts exist only
 * inside the sandbox and take writes that change nothing on the host, which the suite would
 * report as writes that went through. A checkout under /tmp keeps its data beside the home folder.
 */
function hostileCacheRoot(): string {
  const inRepository = path.resolve(".cache", "hostile-repository");
  const privateInSandbox = ["/tmp", "/var/tmp", "/dev/shm", realpathSync(tmpdir())];
  const isPrivate = (candidate: string): boolean =>
    privateInSandbox.some((root) => candidate === root || candidate.startsWith(`${root}/`));
  if (!isPrivate(realpathSync(path.resolve(".")))) return inRepository;
  return path.join(homedir(), ".cache", "agentforge-tests", "hostile-repository");
}
