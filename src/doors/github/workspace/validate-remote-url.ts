export type RemoteUrlValidation = { success: true; value: string } | { success: false; error: string };

/**
 * A remote the App may clone: an http(s) URL without credentials in it (the token travels in a
 * header, never in a URL that git would store), or a local path or `file://` URL for
 * self-hosted mirrors and tests.
 */
export function validateRemoteUrl(remoteUrl: string): RemoteUrlValidation {
  if (remoteUrl.startsWith("-")) return { success: false, error: "a remote URL cannot start with '-'" };
  if (remoteUrl.startsWith("/")) return { success: true, value: remoteUrl };
  if (!URL.canParse(remoteUrl))
    return { success: false, error: "the remote is neither a URL nor an absolute path" };
  const url = new URL(remoteUrl);
  if (url.protocol !== "https:" && url.protocol !== "http:" && url.protocol !== "file:") {
    return { success: false, error: `the remote protocol ${url.protocol} is not supported` };
  }
  if (url.username !== "" || url.password !== "") {
    return { success: false, error: "the remote URL carries credentials; pass the plain clone URL" };
  }
  return { success: true, value: remoteUrl };
}
