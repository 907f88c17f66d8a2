package dev.locksmith.file;

import dev.locksmith.core.spi.LeaseGrant;
import dev.locksmith.core.spi.LockIdText;
import dev.locksmith.core.spi.LockRequest;
import dev.locksmith.core.spi.OwnerTokens;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One attempt to acquire a lock without waiting: open the fencing counter, create the lock file
 * with {@code O_CREAT|O_EXCL}, choose a token above the counter and never below the wall clock in
 * microseconds, write the record through the channel that created the file, and store the token in
 * the counter in place, granting only once the counter file at its name shows that write (else the
 * {@link AcquisitionSlowPath} replaces the counter file). A stale lock file in the way is handed to
 * the {@link TakeOver}.
 */
final class Acquisition {
  // Logged under the provider's name, as operators configure it.
  private static final Logger LOG = LoggerFactory.getLogger(FileLockProvider.class);
  private static final int ACQUIRE_ROUNDS = 4;
  private static final long PID = ProcessHandle.current().pid();

  private final LockDirectory directory;
  private final TakeOver takeOver;
  private final Tombs tombs;
  private final LockFileReadBack readBack;
  private final AcquisitionSlowPath slowPath;
  private final long skewMillis;
  private final long garbledGraceMillis;

  Acquisition(FileLockSettings settings, LockDirectory directory, TakeOver takeOver, Tombs tombs) {
    this.directory = directory;
    this.takeOver = takeOver;
    this.tombs = tombs;
    this.readBack = new LockFileReadBack(directory);
    this.slowPath = new AcquisitionSlowPath(directory, readBack);
    this.skewMillis = settings.skew().toMillis();
    this.garbledGraceMillis = settings.garbledGrace().toMillis();
  }

  /**
   * Tries to acquire {@code request}'s lock once; empty when it is held (or its take-over is under
   * way elsewhere). The grant's local deadline counts from {@code startNanos}.
   */
  Optional<LeaseGrant> tryAcquire(
      LockRequest request, LockFileNames.LockFiles files, long startNanos, TestHooks hooks)
      throws IOException {
    long knownToken = 0;
    int round = 0;
    while (round < ACQUIRE_ROUNDS) {
      // The counter is opened before the lock file exists: if this caller's lock file is ever
      // taken over, the counter file it holds open has been replaced by then (see create).
      FencingCounter counter = directory.openCounter(files, request.lockId());
      FileChannel channel;
      try {
        hooks.beforeLockCreate(request.lockId());
        channel = directory.createNew(files.lock());
      } catch (IOException | RuntimeException e) {
        closeQuietly(counter, e);
        throw e;
      }
      if (channel != null) {
        return create(request, files, channel, counter, knownToken, startNanos, hooks);
      }
      counter.close();
      Observed seen = directory.read(files.lock());
      if (seen == null) {
        round++;
        continue;
      }
      if (!seen.stale(System.currentTimeMillis(), skewMillis, garbledGraceMillis)) {
        return Optional.empty();
      }
      TakeOver.Outcome outcome = takeOver.steal(files, request.lockId(), seen, hooks);
      if (outcome == TakeOver.Outcome.BUSY) {
        return Optional.empty();
      }
      if (outcome == TakeOver.Outcome.STOLEN) {
        // The stale file is gone: always try to create once more (a stale file never returns,
        // so this cannot loop for ever).
        LockRecord stale = seen.record();
        knownToken = Math.max(knownToken, stale == null ? 0 : stale.fencingToken());
      } else {
        round++;
      }
    }
    return Optional.empty();
  }

  /**
   * Removes the lock file this caller created and did not finish writing, never granted: the file
   * of {@code createdKey} where the file system has keys ({@link #removeCreated}). Without keys
   * nobody else may touch it yet, unless the write stalled past the garbled grace (A3 broken): then
   * others may have taken the empty file over and a new holder created the file at the name, which
   * is put back, as a take-over does.
   */
  private void removeUnwritten(
      LockFileNames.LockFiles files, LockRequest request, @Nullable Object createdKey)
      throws IOException {
    if (createdKey != null) {
      tombs.removeCreated(files, request.lockId(), request.ownerToken(), createdKey);
      return;
    }
    Path tomb = files.tomb(OwnerTokens.newToken());
    if (!directory.moveAway(files.lock(), tomb)) {
      return;
    }
    LockRecord moved;
    try {
      moved = directory.readRecord(tomb);
    } catch (IOException | RuntimeException e) {
      tombs.restore(files.lock(), tomb); // unknown whose: back under the name, safe either way
      throw e;
    }
    // An empty or cut-short file is taken for this caller's; another holder's not yet written
    // would be taken for it too, in the rare case where that holder created it during the stall.
    if (moved != null && !moved.ownerToken().equals(request.ownerToken())) {
      LOG.error(
          "Removing the unwritten lock file of {} moved another holder's file (a write stalled"
              + " past the garbled grace?); putting it back",
          LockIdText.quoted(request.lockId()));
      tombs.restore(files.lock(), tomb);
      return;
    }
    Files.deleteIfExists(tomb);
  }

  /**
   * Chooses the token, writes the record into the lock file this caller just created and stores the
   * token in the counter, which {@code counter} opened before the lock file was created.
   *
   * <p>Fast path: the token goes into the counter file in place, and the grant is returned once the
   * file at the counter's name shows this write's stamp. Every take-over replaces the counter file
   * (a new file, linked in) before it removes the stale lock file, and a replaced file never comes
   * back; so if the stamp is there, the file this caller opened before creating its lock file was
   * never replaced, this caller's lock file was not taken over before the check, and no other grant
   * can have used the file meanwhile. Only a take-over or release that broke A3 (stalled past its
   * checks) renames a live lock file away without replacing the counter, and another process may
   * then have created its own and stored the same token: so the lock file is read back by name
   * before the grant. The value is also read by name after the create, and a higher one there (a
   * read through the early channel answered from a network mount's stale cache) skips the fast
   * path. Otherwise ({@link AcquisitionSlowPath}) the counter is replaced with a token above its
   * current value.
   */
  private Optional<LeaseGrant> create(
      LockRequest request,
      LockFileNames.LockFiles files,
      FileChannel channel,
      FencingCounter counter,
      long knownToken,
      long startNanos,
      TestHooks hooks)
      throws IOException {
    try (channel;
        counter) {
      long token;
      LockRecord record;
      boolean current;
      // Known at once: nobody takes a lock file over within moments of its creation.
      @Nullable Object createdKey = null;
      try {
        createdKey = directory.fileKey(files.lock());
        long early = counter.read(hooks);
        // The early channel may have been opened before the last holder's write, and an NFS
        // client may answer it from pages cached then; a file opened now is revalidated and shows
        // every write closed before this caller's create. Higher by name: no write in place.
        long named = CounterFile.valueAt(files.fence(), files, request.lockId());
        current = named <= early;
        long highest = Math.max(Math.max(early, named), knownToken);
        token = Math.max(highest + 1, FencingCounter.clockFloor());
        record = record(request, token);
        hooks.beforeLockWrite(request.lockId());
        directory.write(channel, record.encode());
      } catch (IOException | RuntimeException e) {
        try {
          removeUnwritten(files, request, createdKey);
        } catch (IOException | RuntimeException cleanup) {
          e.addSuppressed(cleanup);
        }
        throw e;
      }
      boolean settling = false;
      boolean lost = false;
      try {
        String stamp = CounterFile.newStamp();
        hooks.beforeCounterStore(request.lockId(), token);
        Optional<LeaseGrant> granted;
        if (current && counter.storeInPlace(token, stamp) && counter.stillInPlace(stamp)) {
          // A process stalled past its checks may have renamed the new lock file away by name,
          // without replacing the counter, and another taken the lock with the same counter.
          granted = readBack.grantIfHeld(request, files, token, startNanos);
        } else {
          settling = true;
          granted =
              slowPath.settle(request, files, channel, record, counter.found(), startNanos, hooks);
          settling = false; // the counter is published again
        }
        lost = granted.isEmpty();
        // An NFS client may report a failed write (a full share, a soft mount's EIO) only when
        // the file closes: closed here, such a failure cleans up as any other.
        hooks.beforeAcquireClose(request.lockId());
        channel.close();
        counter.close();
        return granted;
      } catch (IOException | RuntimeException e) {
        if (settling) {
          // The slow path may have taken the counter away under this caller's owner-token name;
          // only the take-over of this lock file collects it, so the file stays until it expires.
          LOG.warn(
              "Acquiring lock {} failed while replacing its fencing counter; its lock file {}"
                  + " stays until its lease would have ended, so that its take-over carries the"
                  + " counter on",
              LockIdText.quoted(request.lockId()),
              files.lock());
          throw e;
        }
        if (lost) {
          // The lock file is another holder's now: moving it away to look, even to put it back,
          // would let a third process create one meanwhile, beside that holder.
          throw e;
        }
        // Never granted; remove the lock file only if it is still this caller's.
        try {
          removeCreated(files, request, createdKey);
        } catch (IOException | RuntimeException cleanup) {
          e.addSuppressed(cleanup);
        }
        throw e;
      }
    }
  }

  /**
   * Removes the lock file this caller created and was not granted, only while the name still holds
   * it: if this caller stalled past its lease, the name may hold a new holder's file, and moving
   * that away, even to put it back, would let a third process create one beside it.
   */
  private void removeCreated(
      LockFileNames.LockFiles files, LockRequest request, @Nullable Object createdKey)
      throws IOException {
    if (createdKey != null) {
      tombs.removeCreated(files, request.lockId(), request.ownerToken(), createdKey);
      return;
    }
    // A file system without file keys: by the record at the name, as a release does.
    LockRecord named = directory.readRecord(files.lock());
    if (named != null && named.ownerToken().equals(request.ownerToken())) {
      tombs.removeOwn(files, request.lockId(), request.ownerToken(), Tombs.ANY_TOKEN);
    }
  }

  private static LockRecord record(LockRequest request, long token) {
    long ttlMillis = LockRecord.ttlMillis(request.ttl());
    long now = System.currentTimeMillis();
    return new LockRecord(
        request.lockId(),
        request.ownerToken(),
        token,
        now + ttlMillis,
        ttlMillis,
        request.owner(),
        OwnerTokens.host(),
        PID,
        Thread.currentThread().getName(),
        now);
  }

  private static void closeQuietly(@Nullable FencingCounter counter, Exception failure) {
    if (counter == null) {
      return;
    }
    try {
      counter.close();
    } catch (IOException e) {
      failure.addSuppressed(e);
    }
  }
}
