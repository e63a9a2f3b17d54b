import { constants } from "node:fs";
import { open } from "node:fs/promises";

export const TUN_DEVICE = "/dev/net/tun";

export type TunDeviceCheck = { readonly usable: true } | { readonly usable: false; readonly reason: string };

/**
 * slirp4netns gives the setup network its interface through the kernel's TUN device. Root can
 * always open it; another user only where the device's permissions allow (on some machines it is
 * root-only, mode 0600). Opening it and closing it again changes nothing.
 */
export async function checkTunDevice(): Promise<TunDeviceCheck> {
  try {
    const handle = await open(TUN_DEVICE, constants.O_RDWR);
    await handle.close();
    return { usable: true };
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? "unknown error";
    return { usable: false, reason: `${TUN_DEVICE} cannot be opened by this user (${code})` };
  }
}

/** What to do about it, shared by the refusal and doctor. */
export const TUN_DEVICE_FIX =
  "Let the harness's user open /dev/net/tun (chmod 0666 /dev/net/tun, or in a container --device /dev/net/tun), or set AGENTFORGE_SETUP_NETWORK=host to share the host's network with setup commands.";
