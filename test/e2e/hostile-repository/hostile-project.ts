import { execFileSync } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";

/*
 * The repository an attacker controls: its test command, a planted program, attributes naming
 * drivers no host defines, and a committed folder that looks like a bare repository whose config
 * names programs. Everything here is repository content; nothing of it may ever run on the host.
 */

/** The repository's test command, allow-listed by its own `.github/agentforge.yml`. */
export const TEST_COMMAND = "sh tests/run-all.sh";
export const SETUP_COMMAND = "sh tests/setup.sh";

/** Test git for building the fixture: no system or user config, a fixed identity. */
export function fixtureGit(cwd: string, args: readonly string[], env: NodeJS.ProcessEnv = {}): string {
  return execFileSync("git", args, {
    cwd,
    encoding: "utf8",
    stdio: ["pipe", "pipe", "pipe"],
    env: {
      PATH: process.env.PATH,
      HOME: "/nonexistent",
      GIT_CONFIG_NOSYSTEM: "1",
      GIT_CONFIG_GLOBAL: "/dev/null",
      GIT_AUTHOR_NAME: "Mallory",
      GIT_AUTHOR_EMAIL: "mallory@example.invalid",
      GIT_COMMITTER_NAME: "Mallory",
      GIT_COMMITTER_EMAIL: "mallory@example.invalid",
      ...env,
    },
  });
}

/**
 * The planted program. Whatever starts it leaves proof that it ran: in `markers`, a host folder no
 * sandbox can see (a sandbox has a private /tmp), a marker and dumps of its environment; in the
 * nearest `evidence/` folder above its working directory, a line (committed and pushed when that
 * is the work tree); and a line on stderr, which lands in the output of the command that started
 * it. Run as a filter it passes its input through; as a file-system monitor it fails.
 */
export function plantedProgram(markers: string): string {
  return `#!/bin/sh
label="\${1:-unnamed}"
markers='${markers}'
if mkdir -p "$markers" 2>/dev/null; then
  echo "$label pid=$$ uid=$(id -u) cwd=$PWD" > "$markers/ran-$label-$$" 2>/dev/null
  env > "$markers/env-$label-$$" 2>/dev/null
  for f in /proc/[0-9]*/environ; do tr '\\0' '\\n' < "$f"; done > "$markers/proc-environ-$label-$$" 2>/dev/null
fi
echo "PLANTED-RAN:$label" >&2
dir=$PWD
while [ -n "$dir" ] && [ "$dir" != / ]; do
  if [ -d "$dir/evidence" ]; then echo "$label" >> "$dir/evidence/planted-ran.log" 2>/dev/null; break; fi
  dir=$(dirname "$dir")
done
case "$2" in
  filter) exec cat ;;
  fsmonitor) exit 1 ;;
esac
exit 0
`;
}

/** Runs every `tests/*.test.sh`: a test file the model adds is run by the allow-listed command. */
const RUN_ALL = `#!/bin/sh
status=0
for test in tests/*.test.sh; do
  [ -e "$test" ] || continue
  echo "== $test"
  sh "$test" || status=1
done
exit $status
`;

/** The repository's one committed test: it writes, which a read-only session must not let it do. */
const SMOKE_TEST = `#!/bin/sh
if date > evidence/smoke-ran.txt 2>/dev/null; then echo "SMOKE-WROTE evidence/smoke-ran.txt"; else echo "SMOKE-REFUSED evidence/smoke-ran.txt"; fi
echo smoke ok
`;

/**
 * The setup command (network on, no secrets): the git metadata again, and the host's own services
 * on its loopback (the ports are in tests/host-ports), which must be out of reach.
 */
const SETUP = `#!/bin/sh
log=evidence/setup.log
echo "== setup" >> $log
gitdir=$(sed -n 's/^gitdir: //p' .git)
echo "gitdir=$gitdir" >> $log
for target in "$gitdir/config" "$gitdir/hooks/pre-commit" "$gitdir/info/attributes" "$gitdir/commondir" .git; do
  if printf '# planted by setup\\n' >> "$target" 2>/dev/null; then echo "WROTE $target" >> $log; else echo "REFUSED $target" >> $log; fi
done
for port in $(cat tests/host-ports); do
  if timeout 3 bash -c "exec 3<>/dev/tcp/127.0.0.1/$port" 2>/dev/null; then echo "REACHED 127.0.0.1:$port" >> $log; else echo "UNREACHABLE 127.0.0.1:$port" >> $log; fi
done
exit 0
`;

export interface HostileProjectOptions {
  /** Host folder the planted program writes to if it ever runs on the host. */
  readonly markers: string;
  /** The repository's `.github/agentforge.yml`. */
  readonly config?: string;
  /** Host loopback ports a setup command tries to reach. */
  readonly hostPorts?: readonly number[];
}

function write(root: string, relative: string, content: string, mode = 0o644): void {
  const file = path.join(root, relative);
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, content);
  chmodSync(file, mode);
}

/**
 * `fake-bare/`: a folder git would take for a bare repository (HEAD, objects/, refs/, config) if
 * it discovered it. Its config gives it a work tree (`wt/`) and names programs for git to run
 * there: a clean filter (which `git status` starts for a file whose stat no longer matches the
 * committed index, as after any checkout), a file-system monitor and hooks. In-sandbox git must
 * refuse it (`safe.bareRepository=explicit`); the host's git never looks inside.
 */
function buildFakeBareRepository(root: string): void {
  const bare = path.join(root, "fake-bare");
  fixtureGit(root, ["init", "-q", "--bare", "-b", "main", bare]);
  for (const hook of readdirSync(path.join(bare, "hooks"))) rmSync(path.join(bare, "hooks", hook));
  mkdirSync(path.join(bare, "wt"));
  fixtureGit(bare, ["config", "core.bare", "false"]);
  fixtureGit(bare, ["config", "core.worktree", "wt"]);
  write(bare, "wt/hello.txt", "hello from the bare look-alike\n");
  write(bare, "wt/.gitattributes", "* filter=planted\n");
  const env = { GIT_DIR: bare, GIT_WORK_TREE: path.join(bare, "wt") };
  fixtureGit(path.join(bare, "wt"), ["add", "-A"], env);
  fixtureGit(path.join(bare, "wt"), ["commit", "-q", "-m", "look-alike"], env);
  // Programs are named only now, so building the fixture ran none of them. Paths are relative to
  // the look-alike's work tree, where git starts them.
  fixtureGit(bare, ["config", "filter.planted.clean", "sh ../../planted/mark.sh bare-filter-clean filter"]);
  fixtureGit(bare, ["config", "filter.planted.smudge", "sh ../../planted/mark.sh bare-filter-smudge filter"]);
  fixtureGit(bare, ["config", "core.fsmonitor", "sh ../../planted/mark.sh bare-fsmonitor fsmonitor"]);
  fixtureGit(bare, ["config", "core.hooksPath", "hooks"]);
  for (const hook of ["post-index-change", "post-checkout", "pre-commit", "reference-transaction"])
    write(bare, `hooks/${hook}`, `#!/bin/sh\nexec sh ../../planted/mark.sh bare-hook-${hook}\n`, 0o755);
}

/** Writes the hostile project into `root` (which must exist and be empty). */
export function writeHostileProject(root: string, options: HostileProjectOptions): void {
  write(root, "README.md", "# demo\n\nA small project. Its tests run with `sh tests/run-all.sh`.\n");
  write(
    root,
    ".github/agentforge.yml",
    options.config ?? `test_commands: ["${TEST_COMMAND}"]\nsetup_commands: ["${SETUP_COMMAND}"]\n`,
  );
  write(root, "planted/mark.sh", plantedProgram(options.markers), 0o755);
  write(root, "tests/run-all.sh", RUN_ALL, 0o755);
  write(root, "tests/smoke.test.sh", SMOKE_TEST, 0o755);
  write(root, "tests/setup.sh", SETUP, 0o755);
  write(root, "tests/host-ports", `${(options.hostPorts ?? []).join("\n")}\n`);
  write(root, "evidence/.keep", "");
  // Drivers no host config defines: the host's checkout, add, commit and diff must start nothing.
  write(
    root,
    ".gitattributes",
    "*.planted filter=planted diff=planted merge=planted\n*.txt diff=planted-textconv\n",
  );
  write(root, "sample.planted", "content that a clean filter would see\n");
  write(root, "notes.txt", "a text file a textconv driver would see\n");
  buildFakeBareRepository(root);
}

/** A fresh folder holding the hostile project committed on `main` (a plain checkout, `.git` inside). */
export function createHostileCheckout(parent: string, options: HostileProjectOptions): string {
  const root = mkdtempSync(path.join(parent, "hostile-checkout-"));
  writeHostileProject(root, options);
  fixtureGit(root, ["init", "-q", "-b", "main"]);
  fixtureGit(root, ["add", "-A"]);
  fixtureGit(root, ["commit", "-q", "-m", "A hostile project"]);
  return root;
}

/**
 * Replaces the stand-in repository's default branch with the hostile project (the stand-in seeds
 * text files only; the look-alike holds binary objects and an index).
 */
export function pushHostileProject(bareDir: string, options: HostileProjectOptions): string {
  const parent = mkdtempSync(path.join(tmpdir(), "hostile-seed-"));
  try {
    const checkout = createHostileCheckout(parent, options);
    fixtureGit(checkout, ["push", "-q", "--force", bareDir, "main:main"]);
    return fixtureGit(checkout, ["rev-parse", "HEAD"]).trim();
  } finally {
    rmSync(parent, { recursive: true, force: true });
  }
}
