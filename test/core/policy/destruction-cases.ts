import type { CommandClassification } from "../../../src/core/policy/command-classification.js";

/** Judged in `auto` with the workspace at WORKSPACE and the command starting at its root. */
export const WORKSPACE = "/work/ws";

export interface DestructionCase {
  readonly command: string;
  readonly classification: CommandClassification;
  /** Words the reason must contain. */
  readonly reason: readonly string[];
}

function cases(
  classification: CommandClassification,
  entries: readonly (readonly [string, ...string[]])[],
): DestructionCase[] {
  return entries.map(([command, ...reason]) => ({ command, classification, reason }));
}

/** Deletions and writes aimed outside the workspace: refused in `auto`, however they are spelled. */
export const OUTSIDE_CASES = cases("dangerous", [
  ["rm -rf /work/other", "deletes `/work/other`, which is outside the workspace"],
  ["rm -rf /work/ws/../other", "outside the workspace"],
  ["rm -rf ../x", "deletes `../x`, which is outside the workspace"],
  ["rm -rf build/../../x", "outside the workspace"],
  ["rm -fr -- ~/x", "deletes `~/x`"],
  ["rm -r -f ~/.ssh", "deletes `~/.ssh`"],
  ["rm -rf $HOME/x", "deletes `$HOME/x`"],
  ['rm -rf "${HOME}/x"', "outside the workspace"],
  ["rm --recursive --interactive=never /srv/x", "outside the workspace"],
  ["\\rm -rf /opt/app", "outside the workspace"],
  ["/bin/rm -r /data", "outside the workspace"],
  ["rmdir ~/x", "deletes `~/x`"],
  ["unlink /etc/x", "deletes `/etc/x`"],
  ["shred -u ~/.bash_history", "deletes `~/.bash_history`"],
  ["find / -name x -delete", "deletes `/`"],
  ["find ~ -name '*.log' -delete", "deletes `~`"],
  ["find . ~/x -delete", "deletes `~/x`"],
  ["find ~ -exec rm {} \\;", "through `find -exec`", "deletes `{}`"],
  ["find . -exec rm /etc/passwd \\;", "deletes `/etc/passwd`"],
  ["find /srv -execdir rm {} +", "deletes `{}`"],
  ["tee ~/.bashrc", "overwrites `~/.bashrc`"],
  ["echo x | tee -a ~/.ssh/authorized_keys", "overwrites `~/.ssh/authorized_keys`"],
  ["truncate -s 0 /var/log/x", "overwrites `/var/log/x`"],
  ["cp x ~/.ssh/authorized_keys", "overwrites `~/.ssh/authorized_keys`"],
  ["cp -t /etc x", "overwrites `/etc`"],
  ["cp --target-directory=/etc x y", "overwrites `/etc`"],
  ["cp -rt ~/x a", "overwrites `~/x`"],
  ["mv ~/.ssh/id_rsa .", "deletes `~/.ssh/id_rsa`"],
  ["mv x /srv/y", "deletes `/srv/y`"],
  ["install -m 755 x /usr/local/bin/x", "overwrites `/usr/local/bin/x`"],
  ["install -d ~/x", "creates `~/x`"],
  ["ln -sf x ~/.bashrc", "overwrites `~/.bashrc`"],
  ["dd if=x of=~/y", "overwrites `~/y`"],
  ["dd if=/dev/zero of=/dev/sda", "writes to the device `/dev/sda`"],
  ["rsync -a src/ /backup/", "overwrites `/backup/`"],
  ["rsync -a --log-file=/var/log/r src dst", "overwrites `/var/log/r`"],
  ["chmod 600 ~/.ssh/authorized_keys", "overwrites `~/.ssh/authorized_keys`"],
  ["chmod -w /srv/x", "overwrites `/srv/x`"],
  ["chown me /srv/x", "overwrites `/srv/x`"],
  ["chgrp -R me ../x", "overwrites `../x`"],
  ["sed -i 's/a/b/' /etc/hosts", "overwrites `/etc/hosts`"],
  ["sed -i -e s/a/b/ f ~/x", "overwrites `~/x`"],
  ["touch ~/x", "creates `~/x`"],
  ["mkdir -p /srv/x", "creates `/srv/x`"],
  ["echo x > ~/.ssh/authorized_keys", "writes to `~/.ssh/authorized_keys` through a redirection"],
  ["echo x >> $HOME/.bashrc", "writes to `$HOME/.bashrc`"],
  ["echo x &> /srv/x", "writes to `/srv/x`"],
  ["echo x >| ../x", "writes to `../x`"],
  ["ls 2> /var/log/x", "writes to `/var/log/x`"],
  ["timeout 5 rm -rf ~/x", "through `timeout`"],
  ["nice -n 5 cp x /etc/y", "through `nice`"],
  ["xargs -a list rm -rf /srv", "deletes `/srv`"],
  ["bash -c 'rm -rf ~/x'", "in the command string run by `bash -c`"],
  ["sh -c 'echo x > /etc/x'", "in the command string run by `sh -c`"],
  ["eval 'rm -rf ~/x'", "in the command string run by `eval`"],
  ["trap 'rm -rf ~/x' EXIT", "in the command string run by `trap`"],
  ["alias ls='rm -rf ~/x'", "in the command string run by `alias`"],
  ["compgen -C 'rm -rf ~/x' y", "in the command string run by `compgen -C`"],
  ["f() { rm -rf ~/x; }; f", "deletes `~/x`"],
  ["echo $(rm -rf ~/x)", "deletes `~/x`"],
  ["cat <(rm -rf ~/x)", "deletes `~/x`"],
]);

/** Destructive commands whose target cannot be known before they run: `auto` asks. */
export const UNKNOWN_TARGET_CASES = cases("unparseable", [
  ['rm -rf "$dir"', "deletes files the policy cannot locate"],
  ["rm -rf $(cat list)", "may be outside the workspace"],
  ["rm -rf build/$x", "may be outside the workspace"],
  ["xargs rm", "it gets further files from its input through xargs"],
  ["find . -print0 | xargs -0 rm -f", "through xargs"],
  ["echo x | xargs -I{} rm {}", "may be outside the workspace"],
  ['cp x "$dest"', "may be outside the workspace"],
  ['mv "$a" b', "may be outside the workspace"],
  ['echo x > "$f"', 'writes to `"$f"` through a redirection'],
  ["echo x > $(cat f)", "may be outside the workspace"],
  ["cd /tmp && rm -rf x", "relative to a folder that is not known", "`cd /tmp` left the workspace"],
  ["cd ~ && rm x", "`cd ~` went to the home folder"],
  ['cd "$d" && rm x', "computed at run time"],
  ["cd src && rm -rf ../x", "depending on an earlier `cd`"],
  ["cd - && rm x", "not known"],
  ["cd /tmp; cd /work/ws; rm ../x", "relative to a folder that is not known"],
  // `cd ..` might run from the root: the folders a `cd` may lead to are all kept.
  ["cd src && cd .. && rm x", "`cd ..` left the workspace"],
  // Code that runs later, or in a loop, runs after a `cd` that comes after it in the text.
  ["f() { rm x; }; cd /; f", "a function may be called after a `cd`"],
  ["f() { cd /; }; f; rm x", "a function of this command line, which may change the folder, ran before it"],
  ["for i in 1 2; do rm x; cd /; done", "the folder changes inside a loop"],
  ["while true; do rm x; cd /; done", "the folder changes inside a loop"],
  ["eval 'cd /'; rm x", "`eval` may have changed the folder"],
  ["source f; rm x", "`source` may have changed the folder"],
  ["trap 'rm x' EXIT; cd /", "`trap` code runs after a `cd`"],
  ["alias r='rm x'; cd /", "`alias` code runs after a `cd`"],
  ["env -C /srv rm -rf x", "relative to a folder that is not known"],
  ["bash -c 'cd /; rm -rf x'", "left the workspace"],
  ["find ~/x -execdir rm x \\;", "relative to a folder that is not known"],
  ["sed -i s/a/b/ $files", "may be outside the workspace"],
  ['dd if=x of="$out"', "may be outside the workspace"],
  ["declare 'a[$(rm -rf ~)]=1'", "evaluates the array subscript `$(rm -rf ~)`"],
  ['eval "$(cat cmd)"', "computed at run time"],
  ["echo 'rm -rf ~' | sh", "pipes the output of an earlier command into `sh`"],
]);

/** Writes and deletions inside the workspace keep their old behaviour: `auto` runs them. */
export const INSIDE_CASES = cases("not_allowlisted", [
  ["rm -rf build", ""],
  ["rm -rf /work/ws/build", ""],
  ["rm -rf build/*", ""],
  ["rm -- -x", ""],
  ["cd src && rm -rf x", ""],
  ["find . -name '*.o' -delete", "`find -delete`"],
  ["find src -exec rm {} +", ""],
  ["tee out.txt", ""],
  ["cp /etc/passwd .", ""],
  ["cp -r ../ws/a b", ""],
  ["mv a b", ""],
  ["ln -s /etc/passwd", ""],
  ["dd if=/dev/zero of=zeros bs=1 count=1", ""],
  ["rsync -a /etc/ ./backup", ""],
  ["chmod -R 755 src", ""],
  ["sed -i '/foo/d' f", "`sed -i`"],
  ["echo x > out", "writes to `out` through a redirection"],
  ["echo x > /tmp/scratch", "writes to `/tmp/scratch` through a redirection"],
  ['mkdir "$d"', ""],
  ["touch a b", ""],
  ["env -C src rm x", ""],
  ["cd -- src && rm x", ""],
]);
