package dev.locksmith.file;

import dev.locksmith.core.spi.LockIdText;
import dev.locksmith.core.spi.OwnerTokens;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The take-over of a stale lock file: whoever first creates the claim file for exactly the
 * incarnation it saw re-reads it, replaces the fencing counter (so that a paused holder's late
 * counter write lands in a file nobody reads), renames the lock file to a unique tomb and checks
 * what it moved. The module README gives the protocol step by step.
 */
final class TakeOver {
  // Logged under the provider's name, as operators configure it.
  private static final Logger LOG = LoggerFactory.getLogger(FileLockProvider.class);
  private static final int CLAIM_GENERATIONS = 8;

  private final LockDirectory directory;
  private final Tombs tombs;
  private final long garbledGraceMillis;
  private final long garbledGraceNanos;

  TakeOver(FileLockSettings settings, LockDirectory directory, Tombs tombs) {
    this.directory = directory;
    this.tombs = tombs;
    this.garbledGraceMillis = settings.garbledGrace().toMillis();
    this.garbledGraceNanos = settings.garbledGrace().toNanos();
  }

  /** The outcome of trying to take a stale lock file away. */
  enum Outcome {
    /** This caller removed the stale file. */
    STOLEN,
    /** Another stealer is at work on it. */
    BUSY,
    /** The file changed or went away meanwhile; look again. */
    CHANGED
  }

  /**
   * Removes a stale lock file if this caller wins the claim on exactly the incarnation it saw.
   * Claims are created with create-new, so one stealer per incarnation goes on; a claim older than
   * the garbled grace was left by a crashed stealer and the next generation may be claimed.
   */
  Outcome steal(LockFileNames.LockFiles files, String lockId, Observed seen, TestHooks hooks)
      throws IOException {
    Path claim = null;
    int generation = 0;
    long nowMillis = System.currentTimeMillis();
    // Others judge the claim's age from its modification time, set within the call that creates
    // it: this stealer's time on it counts from before that call.
    long claimedAt = 0;
    for (; generation < CLAIM_GENERATIONS; generation++) {
      Path candidate = files.claim(seen.identity(), generation);
      long creating = System.nanoTime();
      if (directory.createEmpty(candidate)) {
        claim = candidate;
        claimedAt = creating;
        break;
      } else {
        long age = directory.ageMillis(candidate, nowMillis);
        if (age < 0) {
          return Outcome.CHANGED;
        }
        if (age <= garbledGraceMillis) {
          return Outcome.BUSY;
        }
      }
    }
    if (claim == null) {
      return Outcome.BUSY;
    }
    hooks.afterClaimCreate(lockId);
    try {
      Observed again = directory.read(files.lock());
      if (again == null || !again.identity().equals(seen.identity())) {
        return Outcome.CHANGED;
      }
      if (System.nanoTime() - claimedAt > garbledGraceNanos / 2) {
        return Outcome.CHANGED;
      }
      LockRecord stale = again.record();
      long staleToken = stale != null && stale.lockId().equals(lockId) ? stale.fencingToken() : 0;
      // Replace the counter while the stale file is still in place (nobody else may grant now):
      // at least the stale holder's token, which it may have written into its file without
      // storing it in the counter; and a new file, so that a counter file the stale holder still
      // has open never again reaches the live counter. Counter files that an earlier generation
      // of stealers, or the stale holder itself, took away and left behind are counted too.
      List<Path> leftBehind = new ArrayList<>();
      // This generation's own name too: a stealer that held it before failed half-way (an I/O
      // error) and freed its claim, leaving the counter there; moving the fence onto it would fail.
      for (int earlier = 0; earlier <= generation; earlier++) {
        leftBehind.add(files.taken(seen.identity(), earlier));
      }
      if (stale != null && stale.lockId().equals(lockId)) {
        // The stale holder may have died replacing the counter in its slow path.
        leftBehind.add(files.takenBy(stale.ownerToken()));
      }
      CounterReplacement.replace(
          directory,
          files,
          lockId,
          CounterReplacement.Goal.RAISE,
          files.taken(seen.identity(), generation),
          leftBehind,
          value -> Math.max(value, staleToken),
          CounterFile.newStamp(),
          () -> hooks.beforeStealRaise(lockId, staleToken));
      if (System.nanoTime() - claimedAt > garbledGraceNanos / 2) {
        return Outcome.CHANGED;
      }
      Path tomb = files.tomb(OwnerTokens.newToken());
      if (!directory.moveAway(files.lock(), tomb)) {
        return Outcome.CHANGED;
      }
      Observed moved = directory.read(tomb);
      if (moved == null || !moved.identity().equals(seen.identity())) {
        LOG.error(
            "Taking over lock file {} moved a different file than the stale one inspected"
                + " (clock skew above the allowance, or a process paused for longer than the"
                + " garbled grace?); putting it back",
            files.lock());
        tombs.restore(files.lock(), tomb);
        return Outcome.CHANGED;
      }
      Files.deleteIfExists(tomb);
      logTakeOver(files, seen);
      return Outcome.STOLEN;
    } finally {
      Files.deleteIfExists(claim);
    }
  }

  private static void logTakeOver(LockFileNames.LockFiles files, Observed seen) {
    LockRecord record = seen.record();
    if (record != null) {
      LOG.info(
          "Took over lock {} from {} (fencing token {}, expired at {})",
          LockIdText.quoted(record.lockId()),
          record.owner(),
          record.fencingToken(),
          Instant.ofEpochMilli(record.expiresAtMillis()));
    } else {
      LOG.warn(
          "Took over unreadable lock file {} last modified at {} ({})",
          files.lock(),
          Instant.ofEpochMilli(seen.modifiedMillis()),
          seen.problem());
    }
  }
}
