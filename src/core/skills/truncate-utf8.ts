export interface TruncatedText {
  readonly text: string;
  readonly isTruncated: boolean;
  /** Size of the whole input in UTF-8 bytes. */
  readonly totalBytes: number;
  /** Size of `text` in UTF-8 bytes. */
  readonly keptBytes: number;
}

/** Cut to at most `maxBytes` UTF-8 bytes without splitting a character. */
export function truncateUtf8(input: string | Uint8Array, maxBytes: number): TruncatedText {
  const bytes = typeof input === "string" ? Buffer.from(input, "utf8") : Buffer.from(input);
  if (bytes.length <= maxBytes) {
    return {
      text: bytes.toString("utf8"),
      isTruncated: false,
      totalBytes: bytes.length,
      keptBytes: bytes.length,
    };
  }
  let cut = Math.max(0, maxBytes);
  // Step back over continuation bytes (10xxxxxx) so the cut lands on a character boundary.
  while (cut > 0 && ((bytes[cut] ?? 0) & 0xc0) === 0x80) cut -= 1;
  return {
    text: bytes.subarray(0, cut).toString("utf8"),
    isTruncated: true,
    totalBytes: bytes.length,
    keptBytes: cut,
  };
}
