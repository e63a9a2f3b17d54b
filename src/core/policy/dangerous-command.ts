import { scanOptions, hasOption } from "./scan-options.js";
import type { ShellWord } from "./shell-word.js";

const SYSTEM_DIRECTORIES = new Set([
  "/bin",
  "/boot",
  "/dev",
  "/etc",
  "/home",
  "/lib",
  "/lib32",
  "/lib64",
  "/opt",
  "/proc",
  "/root",
  "/sbin",
  "/srv",
  "/sys",
  "/usr",
  "/var",
]);
const WHOLE_TREE_TARGETS = new Set(["/", "~", "$HOME", "${HOME}", "*", ".", "..", ".*"]);

/** Paths whose recursive removal or permission change wrecks a machine or a home directory. */
export function isCriticalPath(word: ShellWord): boolean {
  let path = word.value.replace(/\/+/g, "/");
  if (path.length > 1) {
    path = path.replace(/\/$/, "");
  }
  if (path.endsWith("/*")) {
    path = path.slice(0, -2) || "/";
  }
  return WHOLE_TREE_TARGETS.has(path) || SYSTEM_DIRECTORIES.has(path);
}

const BLOCK_DEVICE =
  /^\/dev\/(sd|hd|vd|xvd|nvme|mmcblk|loop|md|dm-|sr|nbd|zram|ram|disk\/|mapper\/|mem$|kmem$|port$)/;
/** Where a write lands in the operating system rather than in a project. */
const SYSTEM_WRITE = /^\/(etc|boot|bin|sbin|lib|lib32|lib64|usr|sys|proc|root)(\/|$)/;

/** Why writing to `path` is destructive, if it is. */
export function describeDangerousWriteTarget(path: string): string | undefined {
  const normalised = path.replace(/\/+/g, "/");
  if (BLOCK_DEVICE.test(normalised)) {
    return `writes to the device \`${path}\``;
  }
  if (SYSTEM_WRITE.test(normalised)) {
    return `writes to the system path \`${path}\``;
  }
  return undefined;
}

const POWER_COMMANDS = new Set(["shutdown", "reboot", "halt", "poweroff"]);
const PRIVILEGE_COMMANDS = new Set(["sudo", "doas", "su", "pkexec", "run0"]);
const FORMAT_COMMANDS = new Set(["mke2fs", "wipefs"]);

/**
 * Recognises destructive commands by their parsed words, never by substrings: `grep shutdown
 * log.txt` or `echo "rm -rf /"` are data, only the command position counts.
 */
export function describeDangerousCommand(name: string, args: readonly ShellWord[]): string | undefined {
  if (PRIVILEGE_COMMANDS.has(name)) {
    return `runs \`${name}\`, which asks for administrator rights`;
  }
  if (POWER_COMMANDS.has(name)) {
    return `runs \`${name}\`, which stops or restarts the machine`;
  }
  if (name.startsWith("mkfs") || FORMAT_COMMANDS.has(name)) {
    return `runs \`${name}\`, which erases a file system`;
  }
  const values = args.map((word) => word.value);
  switch (name) {
    case "rm":
      return describeRecursiveOnCriticalPath(name, args, "deletes");
    case "chmod":
    case "chown":
    case "chgrp":
      return describeRecursiveOnCriticalPath(name, args, "changes the permissions or owner of");
    case "dd": {
      const target = values.find((value) => value.startsWith("of="))?.slice(3);
      return target === undefined ? undefined : describeDangerousWriteTarget(target);
    }
    case "tee":
    case "shred":
    case "mkswap": {
      const target = values.find((value) => describeDangerousWriteTarget(value) !== undefined);
      return target === undefined ? undefined : describeDangerousWriteTarget(target);
    }
    case "init":
    case "telinit":
      return values.some((value) => /^[06sS]$/.test(value))
        ? `runs \`${name} ${values.join(" ")}\`, which stops or restarts the machine`
        : undefined;
    case "systemctl":
      return values.some((value) =>
        /^(poweroff|reboot|halt|kexec|emergency|rescue|suspend|hibernate)$/.test(value),
      )
        ? "asks systemd to stop or restart the machine"
        : undefined;
    case "kill":
    case "pkill":
      return killTargets(values).includes("-1")
        ? "sends a signal to every process it may signal (`-1`)"
        : undefined;
    case "crontab":
      return hasOption(scanOptions(args), ["-r"], ["remove"]) === undefined
        ? undefined
        : "removes every cron job of the user";
    default:
      return undefined;
  }
}

function describeRecursiveOnCriticalPath(
  name: string,
  args: readonly ShellWord[],
  verb: string,
): string | undefined {
  const scanned = scanOptions(args);
  const isRecursive = hasOption(scanned, ["-r", "-R"], ["recursive"]) !== undefined;
  const target = scanned.positionals.find(isCriticalPath);
  if (!isRecursive || target === undefined) {
    return undefined;
  }
  return `${verb} \`${target.source}\` recursively`;
}

/** kill's first word may be a signal (`-9`, `-s KILL`, `-n 9`); what follows are the targets. */
function killTargets(values: readonly string[]): readonly string[] {
  let index = 0;
  const first = values[0];
  if (first === "-s" || first === "-n") {
    index = 2;
  } else if (first !== undefined && first.startsWith("-") && first !== "--") {
    index = 1;
  }
  if (values[index] === "--") {
    index += 1;
  }
  return values.slice(index);
}
