package dev.locksmith.file;

import dev.locksmith.core.spi.LeaseGrant;
import dev.locksmith.core.spi.LockIdText;
import dev.locksmith.core.spi.LockRequest;
import java.io.IOException;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The read-back of a new lock file by name before its grant: only the name tells whether the file
 * an acquisition created is still the lock file, or was taken over or renamed away while the
 * acquisition paused (then the lock counts as busy).
 */
final class LockFileReadBack {
  // Logged under the provider's name, as operators configure it.
  private static final Logger LOG = LoggerFactory.getLogger(FileLockProvider.class);

  private final LockDirectory directory;

  LockFileReadBack(LockDirectory directory) {
    this.directory = directory;
  }

  /** Whether the lock file at its name holds {@code request}'s record with {@code token}. */
  boolean holds(LockFileNames.LockFiles files, LockRequest request, long token) throws IOException {
    LockRecord record = directory.readRecord(files.lock());
    return record != null && record.heldBy(request.lockId(), request.ownerToken(), token);
  }

  /**
   * The grant if the lock file still {@linkplain #holds holds} the record, else {@link #lost}. The
   * conservative deadline counts from the request's start; whether the grant came too late to use
   * is the engine's decision, not this provider's.
   */
  Optional<LeaseGrant> grantIfHeld(
      LockRequest request, LockFileNames.LockFiles files, long token, long startNanos)
      throws IOException {
    return holds(files, request, token)
        ? Optional.of(request.granted(token, startNanos))
        : lost(files, request.lockId());
  }

  /** The answer of an acquisition that lost its new lock file before the grant: busy. */
  static Optional<LeaseGrant> lost(LockFileNames.LockFiles files, String lockId) {
    LOG.warn(
        "Acquiring lock {} lost its new lock file {} before the grant (a pause longer than the"
            + " lease?); reporting the lock as busy",
        LockIdText.quoted(lockId),
        files.lock());
    return Optional.empty();
  }
}
