/**
 * The environment of a helper program the sandbox starts on the host (slirp4netns, nsenter, ip,
 * bwrap): the search path and the locale, nothing else. The host's environment holds the App's
 * private key, the model key and the webhook secret; a helper needs none of them.
 */
export function hostHelperEnvironment(hostEnv: NodeJS.ProcessEnv = process.env): Record<string, string> {
  const environment: Record<string, string> = { PATH: hostEnv["PATH"] ?? "/usr/sbin:/usr/bin:/sbin:/bin" };
  for (const name of ["LANG", "LC_ALL"]) {
    const value = hostEnv[name];
    if (value !== undefined) environment[name] = value;
  }
  return environment;
}
