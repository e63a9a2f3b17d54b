import { readFile } from "node:fs/promises";
import os from "node:os";

export interface MachineDescription {
  readonly cpuModel: string;
  readonly cpuCount: number;
  readonly memoryGiB: number;
  readonly node: string;
  readonly os: string;
  readonly kernel: string;
}

async function readOsName(): Promise<string> {
  try {
    const text = await readFile("/etc/os-release", "utf8");
    const match = /^PRETTY_NAME="?([^"\n]*)"?$/m.exec(text);
    return match?.[1] ?? `${os.type()} ${os.release()}`;
  } catch (error) {
    // Not every platform has os-release; the kernel name is the honest fallback.
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return `${os.type()} ${os.release()}`;
    throw error;
  }
}

/** The machine the figures were taken on: without it a figure means little. */
export async function describeMachine(): Promise<MachineDescription> {
  return {
    cpuModel: os.cpus()[0]?.model.trim() ?? "unknown",
    cpuCount: os.availableParallelism(),
    memoryGiB: Math.round((os.totalmem() / 2 ** 30) * 10) / 10,
    node: process.version,
    os: await readOsName(),
    kernel: os.release(),
  };
}
