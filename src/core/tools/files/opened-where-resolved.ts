import { constants, readlinkSync } from "node:fs";

/**
 * How the file tools open a file they resolved: without blocking (a FIFO swapped in after the
 * checks cannot hang the process: the open returns at once and the descriptor is refused as not a
 * regular file) and without following a final symlink (the path is already resolved; a link there
 * now was put in after the check).
 */
export const NO_FOLLOW_READ_FLAGS = constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOFOLLOW;

/**
 * O_NOFOLLOW guards only the last name: a folder on the way may have been swapped for a link since
 * the path was resolved. The kernel says where the descriptor really is (Linux: /proc/self/fd);
 * anything but the resolved path is refused. Where /proc is missing, the open's own checks stand.
 */
export function openedWhereResolved(descriptor: number, resolvedAbsolute: string): boolean {
  let opened: string;
  try {
    opened = readlinkSync(`/proc/self/fd/${descriptor}`);
  } catch {
    return true;
  }
  return opened === resolvedAbsolute;
}
