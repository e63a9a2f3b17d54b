import { optionTable, type OptionTable } from "./parse-options.js";

/**
 * The getopt_long tables of the GNU programs the policy reads options of: coreutils 9.1,
 * diffutils 3.8, sed 4.9, file 5.44 and findutils 4.9 (Debian 12). Each was read from the
 * program itself: every letter and every long name of `--help` was tried for "invalid option",
 * "requires an argument" and "doesn't allow an argument". A name missing here is refused, never
 * guessed, so a gap in a table refuses a command; it cannot approve one.
 */
export const OPTION_TABLES = {
  sort: optionTable(
    "bcdfghik:mno:rst:uy:zCMRS:T:V",
    "batch-size= buffer-size= check[=] compress-program= debug dictionary-order field-separator= files0-from= general-numeric-sort human-numeric-sort ignore-case ignore-leading-blanks ignore-nonprinting key= merge month-sort numeric-sort output= parallel= random-sort random-source= reverse sort= stable temporary-directory= unique version-sort zero-terminated",
  ),
  uniq: optionTable(
    "cdf:is:uw:zD",
    "all-repeated[=] check-chars= count group[=] ignore-case repeated skip-chars= skip-fields= unique zero-terminated",
    true,
  ),
  date: optionTable(
    "d:f:r:s:uI::R",
    "date= debug file= iso-8601[=] reference= resolution rfc-3339= rfc-email set= universal utc",
  ),
  diff: optionTable(
    "abcdefhilnpqrstuvwx:yBC:D:EF:HI:L:NPS:TU:W:X:Z",
    "brief color[=] context[=] ed exclude= exclude-from= expand-tabs from-file= horizon-lines= ifdef= ignore-all-space ignore-blank-lines ignore-case ignore-file-name-case ignore-matching-lines= ignore-space-change ignore-tab-expansion ignore-trailing-space initial-tab label= left-column line-format= minimal new-file no-dereference no-ignore-file-name-case normal paginate palette= rcs recursive report-identical-files show-c-function show-function-line= side-by-side speed-large-files starting-file= strip-trailing-cr suppress-blank-empty suppress-common-lines tabsize= text to-file= unidirectional-new-file unified[=] width= old-group-format= new-group-format= changed-group-format= unchanged-group-format= old-line-format= new-line-format= unchanged-line-format=",
    true,
  ),
  sed: optionTable(
    "be:f:i::l:nrsuzE",
    "debug expression= file= follow-symlinks in-place[=] line-length= null-data posix quiet regexp-extended sandbox separate silent unbuffered",
  ),
  file: optionTable(
    "bcde:f:hiklm:nprsvzCEF:LNP:SZ0",
    "apple brief checking-printout compile debug dereference exclude= exclude-quiet= extension files-from= keep-going list magic-file= mime mime-encoding mime-type no-buffer no-dereference no-pad no-sandbox parameter= preserve-date print0 raw separator= special-files uncompress uncompress-noreport",
  ),
  env: optionTable(
    "iu:vC:S:0",
    "block-signal[=] chdir= debug default-signal[=] ignore-environment ignore-signal[=] list-signal-handling null split-string= unset=",
  ),
  xargs: optionTable(
    "a:d:e::i::l::n:oprs:txE:I:L:P:0",
    "arg-file= delimiter= eof[=] exit interactive max-args= max-chars= max-lines[=] max-procs= no-run-if-empty null open-tty process-slot-var= replace[=] show-limits verbose",
  ),
  timeout: optionTable("k:s:v", "foreground kill-after= preserve-status signal= verbose"),
  nice: optionTable("n:", "adjustment=", true),
  stdbuf: optionTable("e:i:o:", "error= input= output="),
  // GNU time 1.9 (`/usr/bin/time`); bash's own `time` keyword only takes `-p`.
  time: optionTable("ao:f:pqv", "append output= format= portability quiet verbose"),
  ionice: optionTable("c:n:p:P:u:t", "class= classdata= pid= pgid= uid= ignore"),
  // Commands that write, read for the targets they write (describe-write-targets.ts).
  cp: optionTable(
    "abdfilnprst:uvxHLPRS:TZ",
    "archive attributes-only backup[=] context[=] copy-contents dereference force interactive link no-clobber no-dereference no-preserve= no-target-directory one-file-system parents preserve[=] recursive reflink[=] remove-destination sparse= strip-trailing-slashes suffix= symbolic-link target-directory= update verbose",
  ),
  mv: optionTable(
    "bfint:uvS:TZ",
    "backup[=] context force interactive no-clobber no-target-directory strip-trailing-slashes suffix= target-directory= update verbose",
  ),
  rm: optionTable(
    "dfirvIR",
    "dir force interactive[=] no-preserve-root one-file-system preserve-root[=] recursive verbose",
  ),
  rmdir: optionTable("pv", "ignore-fail-on-non-empty parents verbose"),
  unlink: optionTable("", ""),
  shred: optionTable("fn:s:uvxz", "exact force iterations= random-source= remove[=] size= verbose zero"),
  truncate: optionTable("cor:s:", "io-blocks no-create reference= size="),
  tee: optionTable("aip", "append ignore-interrupts output-error[=]"),
  install: optionTable(
    "bcdg:m:o:pst:vCDS:TZ",
    "backup[=] compare context[=] directory group= mode= no-target-directory owner= preserve-context preserve-timestamps strip strip-program= suffix= target-directory= verbose",
  ),
  ln: optionTable(
    "bdfinrst:vFLPS:T",
    "backup[=] directory force interactive logical no-dereference no-target-directory physical relative suffix= symbolic target-directory= verbose",
  ),
  touch: optionTable("acd:fhmr:t:", "date= no-create no-dereference reference= time="),
  mkdir: optionTable("m:pvZ", "context[=] mode= parents verbose"),
  mkfifo: optionTable("m:Z", "context[=] mode="),
  mknod: optionTable("m:Z", "context[=] mode="),
  // chmod also takes modes that look like options (`-w`); those are read as operands there.
  chmod: optionTable(
    "cfvR",
    "changes no-preserve-root preserve-root quiet recursive reference= silent verbose",
  ),
  chown: optionTable(
    "cfhvHLPR",
    "changes dereference from= no-dereference no-preserve-root preserve-root quiet recursive reference= silent verbose",
  ),
  chgrp: optionTable(
    "cfhvHLPR",
    "changes dereference no-dereference no-preserve-root preserve-root quiet recursive reference= silent verbose",
  ),
} satisfies Record<string, OptionTable>;
