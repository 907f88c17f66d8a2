package dev.locksmith.file;

import java.nio.file.Path;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A lock file as read at one moment: its record, or why it does not parse.
 *
 * @param record the parsed record, or {@code null} when the file is cut short or garbled
 * @param problem why the file does not parse, or {@code null}
 * @param modifiedMillis the file's modification time
 * @param identity what tells this incarnation of the file from any other: the content's hash, and
 *     for an unparsable file also its modification time, size and file key
 */
record Observed(
    @Nullable LockRecord record, @Nullable String problem, long modifiedMillis, String identity) {
  private static final Logger LOG = LoggerFactory.getLogger(Observed.class);

  static Observed of(Path path, byte[] bytes, long modifiedMillis, long size, String fileKey) {
    String hash = LockFileNames.sha256Hex(bytes);
    try {
      return new Observed(LockRecord.decode(bytes), null, modifiedMillis, hash);
    } catch (LockRecord.KeyValueText.MalformedException e) {
      LOG.debug("Lock file {} does not parse: {}", path, e.getMessage());
      return new Observed(
          null,
          e.getMessage(),
          modifiedMillis,
          hash + "/" + modifiedMillis + "/" + size + "/" + fileKey);
    }
  }

  /**
   * Whether the lease this file shows may be taken over at wall time {@code nowMillis}: a record
   * whose expiry passed more than {@code skew} ago, or an unparsable file last modified more than
   * {@code garbledGrace} ago.
   */
  boolean stale(long nowMillis, long skewMillis, long garbledGraceMillis) {
    if (record != null) {
      return nowMillis - record.expiresAtMillis() > skewMillis;
    }
    return nowMillis - modifiedMillis > garbledGraceMillis;
  }
}
