package dev.locksmith.file;

import dev.locksmith.core.LockProviderException;
import dev.locksmith.core.spi.LeaseGrant;
import dev.locksmith.core.spi.LockProvider;
import dev.locksmith.core.spi.LockRequest;
import dev.locksmith.core.spi.LockStatus;
import dev.locksmith.core.spi.OwnerTokens;
import java.io.IOException;
import java.nio.channels.ClosedByInterruptException;
import java.nio.channels.FileChannel;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Leases kept as lock files in a directory shared by every host (an NFS mount or a local
 * directory). The protocol is described in the module README; in short:
 *
 * <ul>
 *   <li>acquire creates {@code <name>.lock} with {@code O_CREAT|O_EXCL} and writes the record
 *       through the channel it created, then persists the fencing counter;
 *   <li>a lock file whose expiry passed more than the skew allowance ago (or that is unreadable and
 *       older than the garbled grace) is taken over by whoever first creates the claim file for
 *       exactly that incarnation, re-reads it, renames it to a unique tomb and checks what it
 *       moved;
 *   <li>renew and release act only on the caller's own record and only while the caller's local
 *       deadline, minus a margin, has not passed.
 * </ul>
 */
final class FileLockProvider implements LockProvider {
  private static final Logger LOG = LoggerFactory.getLogger(FileLockProvider.class);
  private static final int STRIPES = 64;
  private static final int ACQUIRE_ROUNDS = 4;
  private static final int CLAIM_GENERATIONS = 8;
  private static final long FIRST_POLL_NANOS = 1_000_000;
  private static final long PID = ProcessHandle.current().pid();

  private final FileLockSettings settings;
  private final LockDirectory directory;
  private final DirectoryWatcher watcher;
  private final String description;
  private final ReentrantLock[] stripes = new ReentrantLock[STRIPES];
  private final long skewMillis;
  private final long garbledGraceMillis;
  private final long marginNanos;
  private volatile boolean closed;

  FileLockProvider(FileLockSettings settings, String description) {
    this.settings = settings;
    this.directory = new LockDirectory(settings);
    this.watcher = new DirectoryWatcher(settings.directory(), settings.watch());
    this.description = description;
    this.skewMillis = settings.skew().toMillis();
    this.garbledGraceMillis = settings.garbledGrace().toMillis();
    this.marginNanos = settings.renewMargin().toNanos();
    for (int i = 0; i < STRIPES; i++) {
      stripes[i] = new ReentrantLock();
    }
  }

  /** The outcome of trying to take a stale lock file away. */
  private enum Steal {
    /** This caller removed the stale file. */
    STOLEN,
    /** Another stealer is at work on it. */
    BUSY,
    /** The file changed or went away meanwhile; look again. */
    CHANGED
  }

  @Override
  public Optional<LeaseGrant> tryAcquire(LockRequest request) {
    checkOpen();
    checkTtl(request.ttl());
    long startNanos = System.nanoTime();
    LockFileNames.LockFiles files = LockFileNames.of(settings.directory(), request.lockId());
    try {
      long knownToken = 0;
      int round = 0;
      while (round < ACQUIRE_ROUNDS) {
        FileChannel channel = directory.createNew(files.lock());
        if (channel != null) {
          return create(request, files, channel, knownToken, startNanos);
        }
        Observed seen = directory.read(files.lock());
        if (seen == null) {
          round++;
          continue;
        }
        if (!seen.stale(System.currentTimeMillis(), skewMillis, garbledGraceMillis)) {
          return Optional.empty();
        }
        Steal outcome = steal(files, request.lockId(), seen);
        if (outcome == Steal.BUSY) {
          return Optional.empty();
        }
        if (outcome == Steal.STOLEN) {
          // The stale file is gone: always try to create once more (a stale file never returns,
          // so this cannot loop for ever).
          LockRecord stale = seen.record();
          knownToken = Math.max(knownToken, stale == null ? 0 : stale.fencingToken());
        } else {
          round++;
        }
      }
      return Optional.empty();
    } catch (IOException e) {
      throw failure("acquire", request.lockId(), files, e);
    }
  }

  /**
   * Writes the record into the lock file this caller just created and persists the counter. The
   * counter file is opened once, read before the record is written and updated in place after it.
   */
  private Optional<LeaseGrant> create(
      LockRequest request,
      LockFileNames.LockFiles files,
      FileChannel channel,
      long knownToken,
      long startNanos)
      throws IOException {
    FencingCounter counter = null;
    long token;
    try (channel) {
      counter = directory.openCounter(files, request.lockId());
      token = Math.max(counter.last(), knownToken) + 1;
      long ttlMillis = ceilMillis(request.ttl());
      long now = System.currentTimeMillis();
      LockRecord record =
          new LockRecord(
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
      directory.write(channel, record.encode());
    } catch (IOException | RuntimeException e) {
      // Created a moment ago and not yet granted: nobody else may have touched it yet.
      closeQuietly(counter, e);
      Files.deleteIfExists(files.lock());
      throw e;
    }
    try (FencingCounter opened = counter) {
      // The grant reports its conservative deadline; whether it came too late to use is the
      // engine's decision, not this provider's.
      long deadline = startNanos + request.ttl().toNanos();
      try {
        opened.store(token);
      } catch (IOException | RuntimeException e) {
        Files.deleteIfExists(files.lock());
        throw e;
      }
      return Optional.of(
          new LeaseGrant(request.lockId(), request.ownerToken(), token, request.ttl(), deadline));
    }
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

  /**
   * Removes a stale lock file if this caller wins the claim on exactly the incarnation it saw.
   * Claims are created with create-new, so one stealer per incarnation goes on; a claim older than
   * the garbled grace was left by a crashed stealer and the next generation may be claimed.
   */
  private Steal steal(LockFileNames.LockFiles files, String lockId, Observed seen)
      throws IOException {
    Path claim = null;
    long nowMillis = System.currentTimeMillis();
    for (int generation = 0; generation < CLAIM_GENERATIONS && claim == null; generation++) {
      Path candidate = files.claim(seen.identity(), generation);
      if (directory.createEmpty(candidate)) {
        claim = candidate;
      } else {
        long age = directory.ageMillis(candidate, nowMillis);
        if (age < 0) {
          return Steal.CHANGED;
        }
        if (age <= garbledGraceMillis) {
          return Steal.BUSY;
        }
      }
    }
    if (claim == null) {
      return Steal.BUSY;
    }
    long claimedAt = System.nanoTime();
    try {
      Observed again = directory.read(files.lock());
      if (again == null || !again.identity().equals(seen.identity())) {
        return Steal.CHANGED;
      }
      if (System.nanoTime() - claimedAt > settings.garbledGrace().toNanos() / 2) {
        return Steal.CHANGED;
      }
      LockRecord stale = again.record();
      if (stale != null && stale.lockId().equals(lockId)) {
        try (FencingCounter counter = directory.openCounter(files, lockId)) {
          if (stale.fencingToken() > counter.last()) {
            // The stale holder died before persisting its token. While its file is still in
            // place nobody else writes the counter, so raise it now: whoever creates the next
            // lock file, this stealer or not, then gets a higher token.
            counter.store(stale.fencingToken());
          }
        }
      }
      Path tomb = files.tomb(OwnerTokens.newToken());
      if (!directory.moveAway(files.lock(), tomb)) {
        return Steal.CHANGED;
      }
      Observed moved = directory.read(tomb);
      if (moved == null || !moved.identity().equals(seen.identity())) {
        LOG.error(
            "Taking over lock file {} moved a different file than the stale one inspected"
                + " (clock skew above the allowance, or a process paused for longer than the"
                + " garbled grace?); putting it back",
            files.lock());
        restore(files.lock(), tomb);
        return Steal.CHANGED;
      }
      Files.deleteIfExists(tomb);
      logTakeOver(files, seen);
      return Steal.STOLEN;
    } finally {
      Files.deleteIfExists(claim);
    }
  }

  private void logTakeOver(LockFileNames.LockFiles files, Observed seen) {
    LockRecord record = seen.record();
    if (record != null) {
      LOG.info(
          "Took over lock '{}' from {} (fencing token {}, expired at {})",
          record.lockId(),
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

  /** Puts a wrongly moved lock file back unless the name has been taken again meanwhile. */
  private void restore(Path lock, Path tomb) throws IOException {
    try {
      Files.createLink(lock, tomb);
    } catch (FileAlreadyExistsException e) {
      LOG.error("Could not put {} back: a new lock file was created meanwhile", lock);
    } catch (UnsupportedOperationException e) {
      LOG.error("Could not put {} back: the file system has no hard links", lock);
    } finally {
      Files.deleteIfExists(tomb);
    }
  }

  @Override
  public Optional<LeaseGrant> acquire(LockRequest request, Duration timeout)
      throws InterruptedException {
    checkOpen();
    checkTtl(request.ttl());
    long deadline = System.nanoTime() + Math.max(0, timeout.toNanos());
    long pollMax = settings.pollMax().toNanos();
    long backoff = Math.min(FIRST_POLL_NANOS, pollMax);
    while (true) {
      if (Thread.interrupted()) {
        throw new InterruptedException("interrupted while waiting for lock " + request.lockId());
      }
      long generation = watcher.generation();
      Optional<LeaseGrant> grant = tryAcquireInterruptibly(request);
      if (grant.isPresent()) {
        return grant;
      }
      long left = deadline - System.nanoTime();
      if (left <= 0) {
        return Optional.empty();
      }
      long pause = Math.min(backoff, left);
      pause = pause / 2 + ThreadLocalRandom.current().nextLong(pause / 2 + 1);
      watcher.await(generation, pause);
      backoff = Math.min(backoff * 2, pollMax);
    }
  }

  /**
   * An interrupt during file I/O closes the channel (ClosedByInterruptException); the attempt then
   * cleans up after itself, and the waiter sees the InterruptedException the SPI promises.
   */
  private Optional<LeaseGrant> tryAcquireInterruptibly(LockRequest request)
      throws InterruptedException {
    try {
      return tryAcquire(request);
    } catch (LockProviderException e) {
      if (e.getCause() instanceof ClosedByInterruptException || Thread.interrupted()) {
        Thread.interrupted();
        InterruptedException interrupted =
            new InterruptedException("interrupted while acquiring lock " + request.lockId());
        interrupted.initCause(e);
        throw interrupted;
      }
      throw e;
    }
  }

  /**
   * Renew and release refuse to act within {@code renew-margin} of the local deadline, so a lease
   * must be longer than that to be renewed or released at all; twice the margin leaves it room.
   */
  private void checkTtl(Duration ttl) {
    if (ttl.toNanos() <= 2 * marginNanos) {
      throw new IllegalArgumentException(
          "ttl "
              + ttl.toMillis()
              + " ms is too short for "
              + description
              + ": it must exceed twice its renew-margin of "
              + TimeUnit.NANOSECONDS.toMillis(marginNanos)
              + " ms, since renew and release refuse to act within the margin of the deadline");
    }
  }

  @Override
  public Optional<LeaseGrant> renew(LeaseGrant lease, Duration ttl) {
    checkOpen();
    if (ttl.isNegative() || ttl.isZero()) {
      throw new IllegalArgumentException("ttl must be positive, was " + ttl);
    }
    long startNanos = System.nanoTime();
    if (lease.deadlineNanos() - startNanos <= marginNanos) {
      return Optional.empty();
    }
    LockFileNames.LockFiles files = LockFileNames.of(settings.directory(), lease.lockId());
    ReentrantLock stripe = stripe(lease.lockId());
    stripe.lock();
    try {
      Observed seen = directory.read(files.lock());
      LockRecord record = seen == null ? null : seen.record();
      if (record == null
          || !record.heldBy(lease.lockId(), lease.ownerToken(), lease.fencingToken())) {
        return Optional.empty();
      }
      long ttlMillis = ceilMillis(ttl);
      byte[] renewed = record.renewed(System.currentTimeMillis() + ttlMillis, ttlMillis).encode();
      if (lease.deadlineNanos() - System.nanoTime() <= marginNanos) {
        return Optional.empty();
      }
      directory.replace(files, files.lock(), renewed);
      return Optional.of(lease.renewed(ttl, startNanos + ttl.toNanos()));
    } catch (IOException e) {
      throw failure("renew", lease.lockId(), files, e);
    } finally {
      stripe.unlock();
    }
  }

  @Override
  public boolean release(LeaseGrant lease) {
    checkOpen();
    if (lease.deadlineNanos() - System.nanoTime() <= marginNanos) {
      return false;
    }
    LockFileNames.LockFiles files = LockFileNames.of(settings.directory(), lease.lockId());
    ReentrantLock stripe = stripe(lease.lockId());
    stripe.lock();
    try {
      LockRecord current = directory.readRecord(files.lock());
      if (current == null
          || !current.heldBy(lease.lockId(), lease.ownerToken(), lease.fencingToken())) {
        return false;
      }
      if (lease.deadlineNanos() - System.nanoTime() <= marginNanos) {
        return false;
      }
      Path tomb = files.tomb(OwnerTokens.newToken());
      if (!directory.moveAway(files.lock(), tomb)) {
        return false;
      }
      LockRecord moved = directory.readRecord(tomb);
      if (moved == null
          || !moved.heldBy(lease.lockId(), lease.ownerToken(), lease.fencingToken())) {
        LOG.error(
            "Releasing lock '{}' moved another holder's file (clock skew above the allowance?);"
                + " putting it back",
            lease.lockId());
        restore(files.lock(), tomb);
        return false;
      }
      directory.delete(tomb);
      return true;
    } catch (IOException e) {
      throw failure("release", lease.lockId(), files, e);
    } finally {
      stripe.unlock();
    }
  }

  @Override
  public LockStatus status(String lockId) {
    checkOpen();
    LockFileNames.LockFiles files = LockFileNames.of(settings.directory(), lockId);
    try {
      Observed seen = directory.read(files.lock());
      long now = System.currentTimeMillis();
      if (seen == null || seen.stale(now, skewMillis, garbledGraceMillis)) {
        return new LockStatus(lockId, null, -1);
      }
      LockRecord record = seen.record();
      LockStatus.Holder holder =
          record != null
              ? new LockStatus.Holder(
                  record.owner(),
                  record.fencingToken(),
                  Duration.ofMillis(Math.max(0, record.expiresAtMillis() - now)))
              : new LockStatus.Holder(
                  "unknown (unreadable lock file " + files.lock() + ": " + seen.problem() + ")",
                  0,
                  Duration.ofMillis(Math.max(0, seen.modifiedMillis() + garbledGraceMillis - now)));
      return new LockStatus(lockId, holder, -1);
    } catch (IOException e) {
      throw failure("read the status of", lockId, files, e);
    }
  }

  @Override
  public String description() {
    return description;
  }

  @Override
  public void close() {
    closed = true;
    watcher.close();
  }

  private void checkOpen() {
    if (closed) {
      throw new IllegalStateException("File lock provider " + description + " is closed");
    }
  }

  private ReentrantLock stripe(String lockId) {
    return stripes[Math.floorMod(lockId.hashCode(), STRIPES)];
  }

  private static long ceilMillis(Duration duration) {
    long nanos = duration.toNanos();
    return Math.max(1, (nanos + 999_999) / 1_000_000);
  }

  private LockProviderException failure(
      String action, String lockId, LockFileNames.LockFiles files, IOException e) {
    return new LockProviderException(
        "Could not "
            + action
            + " lock '"
            + lockId
            + "' with lock file "
            + files.lock()
            + ": "
            + FileLockSettings.describe(e)
            + " ("
            + e.getClass().getSimpleName()
            + ")",
        e);
  }
}
