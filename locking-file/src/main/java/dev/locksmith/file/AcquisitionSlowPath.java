package dev.locksmith.file;

import dev.locksmith.core.LockProviderException;
import dev.locksmith.core.spi.LeaseGrant;
import dev.locksmith.core.spi.LockIdText;
import dev.locksmith.core.spi.LockRequest;
import dev.locksmith.core.spi.OwnerTokens;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.util.List;
import java.util.Optional;

/**
 * The slow path of an acquisition whose in-place counter update did not land in the live counter
 * (there was no counter file yet, it has the earlier format, a take-over or prune replaced it
 * meanwhile, or the acquirer paused and lost its lock file): replace the counter file with one
 * holding a token above its current value.
 */
final class AcquisitionSlowPath {
  private static final int SETTLE_ATTEMPTS = 4;

  private final LockDirectory directory;
  private final LockFileReadBack readBack;

  AcquisitionSlowPath(LockDirectory directory, LockFileReadBack readBack) {
    this.directory = directory;
    this.readBack = readBack;
  }

  /**
   * Replaces the counter with a token above its current value, rewrites the record in the caller's
   * new lock file (through {@code channel}) if that token differs, and grants only if the lock file
   * still holds this caller's record and the counter file is the one it published.
   */
  Optional<LeaseGrant> settle(
      LockRequest request,
      LockFileNames.LockFiles files,
      FileChannel channel,
      LockRecord record,
      boolean counterFound,
      long startNanos,
      TestHooks hooks)
      throws IOException {
    String lockId = request.lockId();
    LockRecord current = record;
    for (int attempt = 0; attempt < SETTLE_ATTEMPTS; attempt++) {
      long chosen = current.fencingToken();
      if (!readBack.holds(files, request, chosen)) {
        // Lost while it paused: do not disturb the counter of whoever holds the lock now.
        return LockFileReadBack.lost(files, lockId);
      }
      String stamp = CounterFile.newStamp();
      long token =
          CounterReplacement.replace(
              directory,
              files,
              lockId,
              CounterReplacement.Goal.OWN,
              // With no counter file at the start, link a new one before trying to take one.
              attempt > 0
                  ? files.taken(OwnerTokens.newToken())
                  : counterFound ? files.takenBy(request.ownerToken()) : null,
              List.of(),
              value -> Math.max(value + 1, chosen),
              stamp,
              () -> hooks.beforeSettlePublish(lockId));
      if (token != chosen) {
        current = current.withToken(token);
        directory.rewrite(channel, current.encode());
      }
      if (!readBack.holds(files, request, token)) {
        return LockFileReadBack.lost(files, lockId);
      }
      if (CounterReplacement.holdsPublished(files, lockId, stamp)) {
        return Optional.of(request.granted(token, startNanos));
      }
    }
    throw new LockProviderException(
        "The fencing counter "
            + files.fence()
            + " of lock "
            + LockIdText.quoted(lockId)
            + " kept being replaced while this process acquired the lock");
  }
}
