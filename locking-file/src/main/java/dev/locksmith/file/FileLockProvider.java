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
import java.util.ArrayList;
import java.util.List;
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
 *   <li>acquire opens the fencing counter, creates {@code <name>.lock} with {@code O_CREAT|O_EXCL},
 *       chooses a token above the counter and never below the wall clock in microseconds, writes
 *       the record through the channel it created, and stores the token in the counter in place,
 *       granting only once the counter file at its name shows that write (else it replaces the
 *       counter file);
 *   <li>a lock file whose expiry passed more than the skew allowance ago (or that is unreadable and
 *       older than the garbled grace) is taken over by whoever first creates the claim file for
 *       exactly that incarnation, re-reads it, replaces the counter file (so that a paused holder's
 *       late counter write lands in a file nobody reads), renames the lock file to a unique tomb
 *       and checks what it moved;
 *   <li>renew rewrites the caller's record in place through the descriptor it checked it through,
 *       and release renames the caller's file to a tomb and checks it; both act only on the
 *       caller's own record and only while the caller's local deadline, minus a margin, has not
 *       passed.
 * </ul>
 */
final class FileLockProvider implements LockProvider {
  private static final Logger LOG = LoggerFactory.getLogger(FileLockProvider.class);
  private static final int STRIPES = 64;
  private static final int ACQUIRE_ROUNDS = 4;
  private static final int CLAIM_GENERATIONS = 8;
  private static final int SETTLE_ATTEMPTS = 4;
  private static final long ANY_TOKEN = -1;
  private static final long FIRST_POLL_NANOS = 1_000_000;
  private static final long PID = ProcessHandle.current().pid();

  private final FileLockSettings settings;
  private final LockDirectory directory;
  private final DirectoryWatcher watcher;
  private final DirectoryCheck check;
  private final String description;
  private final ReentrantLock[] stripes = new ReentrantLock[STRIPES];
  private final long skewMillis;
  private final long garbledGraceMillis;
  private final long marginNanos;
  private volatile boolean closed;
  private volatile TestHooks hooks = TestHooks.NONE;

  FileLockProvider(FileLockSettings settings, String description) {
    this.settings = settings;
    this.directory = new LockDirectory(settings);
    this.watcher = new DirectoryWatcher(settings.directory(), settings.watch());
    this.check = new DirectoryCheck(settings.directory(), settings.createDirs());
    this.description = description;
    this.skewMillis = settings.skew().toMillis();
    this.garbledGraceMillis = settings.garbledGrace().toMillis();
    this.marginNanos = settings.renewMargin().toNanos();
    for (int i = 0; i < STRIPES; i++) {
      stripes[i] = new ReentrantLock();
    }
  }

  /** Installs test hooks (see {@link TestHooks}); tests only. */
  void hooks(TestHooks testHooks) {
    this.hooks = testHooks;
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
    check.ensureUsable();
    long startNanos = System.nanoTime();
    LockFileNames.LockFiles files = LockFileNames.of(settings.directory(), request.lockId());
    try {
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
          return create(request, files, channel, counter, knownToken, startNanos);
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
   * Chooses the token, writes the record into the lock file this caller just created and stores the
   * token in the counter, which {@code counter} opened before the lock file was created.
   *
   * <p>Fast path: the token goes into the counter file in place, and the grant is returned once the
   * file at the counter's name shows this write's stamp. Every take-over replaces the counter file
   * (a new file, linked in) before it removes the stale lock file, and a replaced file never comes
   * back; so if the stamp is there, the file this caller opened before creating its lock file was
   * never replaced, this caller's lock file was not taken over before the check, and no other grant
   * can have used the file meanwhile. Otherwise ({@link #settle}) the counter is replaced with a
   * token above its current value.
   */
  private Optional<LeaseGrant> create(
      LockRequest request,
      LockFileNames.LockFiles files,
      FileChannel channel,
      FencingCounter counter,
      long knownToken,
      long startNanos)
      throws IOException {
    try (channel;
        counter) {
      long token;
      LockRecord record;
      try {
        long current = counter.read();
        token = Math.max(Math.max(current, knownToken) + 1, FencingCounter.clockFloor());
        record = record(request, token);
        directory.write(channel, record.encode());
      } catch (IOException | RuntimeException e) {
        // Created a moment ago, not yet written, never granted: nobody else may touch it yet.
        Files.deleteIfExists(files.lock());
        throw e;
      }
      try {
        String stamp = FencingCounter.newStamp();
        hooks.beforeCounterStore(request.lockId(), token);
        if (counter.storeInPlace(token, stamp) && counter.stillInPlace(stamp)) {
          return Optional.of(grant(request, token, startNanos));
        }
        return settle(request, files, channel, record, counter.found(), startNanos);
      } catch (IOException | RuntimeException e) {
        // Never granted; remove the lock file only if it is still this caller's.
        try {
          removeOwn(files, request.lockId(), request.ownerToken(), ANY_TOKEN);
        } catch (IOException | RuntimeException cleanup) {
          e.addSuppressed(cleanup);
        }
        throw e;
      }
    }
  }

  /**
   * The slow path of an acquisition whose in-place counter update did not land in the live counter
   * (there was no counter file yet, it has the earlier format, a take-over or prune replaced it
   * meanwhile, or this caller paused and lost its lock file): replace the counter with a token
   * above its current value, rewrite the record if that token differs, and grant only if the lock
   * file still holds this caller's record and the counter file is the one it published.
   */
  private Optional<LeaseGrant> settle(
      LockRequest request,
      LockFileNames.LockFiles files,
      FileChannel channel,
      LockRecord record,
      boolean counterFound,
      long startNanos)
      throws IOException {
    String lockId = request.lockId();
    LockRecord current = record;
    for (int attempt = 0; attempt < SETTLE_ATTEMPTS; attempt++) {
      long chosen = current.fencingToken();
      if (!ownsLockFile(files, lockId, request.ownerToken(), chosen)) {
        // Lost while it paused: do not disturb the counter of whoever holds the lock now.
        return lostWhileAcquiring(files, lockId);
      }
      String stamp = FencingCounter.newStamp();
      long token =
          FencingCounter.replace(
              directory,
              files,
              lockId,
              FencingCounter.Goal.OWN,
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
      if (!ownsLockFile(files, lockId, request.ownerToken(), token)) {
        return lostWhileAcquiring(files, lockId);
      }
      if (FencingCounter.holdsPublished(files, lockId, stamp)) {
        return Optional.of(grant(request, token, startNanos));
      }
    }
    throw new LockProviderException(
        "The fencing counter "
            + files.fence()
            + " of lock '"
            + lockId
            + "' kept being replaced while this process acquired the lock");
  }

  private static Optional<LeaseGrant> lostWhileAcquiring(
      LockFileNames.LockFiles files, String lockId) {
    LOG.warn(
        "Acquiring lock '{}' lost its new lock file {} before the grant (a pause longer than the"
            + " lease?); reporting the lock as busy",
        lockId,
        files.lock());
    return Optional.empty();
  }

  /**
   * The grant: the conservative deadline counts from the request's start. Whether it came too late
   * to use is the engine's decision, not this provider's.
   */
  private static LeaseGrant grant(LockRequest request, long token, long startNanos) {
    return new LeaseGrant(
        request.lockId(),
        request.ownerToken(),
        token,
        request.ttl(),
        startNanos + request.ttl().toNanos());
  }

  private static LockRecord record(LockRequest request, long token) {
    long ttlMillis = ceilMillis(request.ttl());
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

  private boolean ownsLockFile(
      LockFileNames.LockFiles files, String lockId, String ownerToken, long token)
      throws IOException {
    LockRecord record = directory.readRecord(files.lock());
    return record != null && record.heldBy(lockId, ownerToken, token);
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
    int generation = 0;
    long nowMillis = System.currentTimeMillis();
    for (; generation < CLAIM_GENERATIONS; generation++) {
      Path candidate = files.claim(seen.identity(), generation);
      if (directory.createEmpty(candidate)) {
        claim = candidate;
        break;
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
      long staleToken = stale != null && stale.lockId().equals(lockId) ? stale.fencingToken() : 0;
      // Replace the counter while the stale file is still in place (nobody else may grant now):
      // at least the stale holder's token, which it may have written into its file without
      // storing it in the counter; and a new file, so that a counter file the stale holder still
      // has open never again reaches the live counter. Counter files that an earlier generation
      // of stealers, or the stale holder itself, took away and left behind are counted too.
      List<Path> leftBehind = new ArrayList<>();
      for (int earlier = 0; earlier < generation; earlier++) {
        leftBehind.add(files.taken(seen.identity(), earlier));
      }
      if (stale != null && stale.lockId().equals(lockId)) {
        // The stale holder may have died replacing the counter in its slow path.
        leftBehind.add(files.takenBy(stale.ownerToken()));
      }
      FencingCounter.replace(
          directory,
          files,
          lockId,
          FencingCounter.Goal.RAISE,
          files.taken(seen.identity(), generation),
          leftBehind,
          value -> Math.max(value, staleToken),
          FencingCounter.newStamp(),
          () -> hooks.beforeStealRaise(lockId, staleToken));
      if (System.nanoTime() - claimedAt > settings.garbledGrace().toNanos() / 2) {
        return Steal.CHANGED;
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
    check.ensureUsable();
    LockFileNames.LockFiles files = LockFileNames.of(settings.directory(), lease.lockId());
    ReentrantLock stripe = stripe(lease.lockId());
    stripe.lock();
    try {
      long ttlMillis = ceilMillis(ttl);
      LockRecord renewed;
      // Read and write through one descriptor: the write can only land in the file whose record
      // was checked, even if a stealer moved it away or another holder's file took the name
      // meanwhile (the write then goes to the moved-away file, which nobody reads again).
      try (FileChannel channel = directory.openExisting(files.lock())) {
        if (channel == null) {
          check.confirmPresent();
          return Optional.empty();
        }
        LockRecord record = directory.readRecord(channel);
        if (record == null
            || !record.heldBy(lease.lockId(), lease.ownerToken(), lease.fencingToken())) {
          return Optional.empty();
        }
        renewed = record.renewed(System.currentTimeMillis() + ttlMillis, ttlMillis);
        if (lease.deadlineNanos() - System.nanoTime() <= marginNanos) {
          return Optional.empty();
        }
        hooks.beforeRenewWrite(lease.lockId());
        directory.rewrite(channel, renewed.encode());
      }
      // Only the name tells whether that file is still the lock file.
      if (!renewed.equals(directory.readRecord(files.lock()))) {
        LOG.warn(
            "Renewing lock '{}' found its lock file taken over while it renewed (clock skew above"
                + " the allowance, or a pause?); the lease is lost",
            lease.lockId());
        return Optional.empty();
      }
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
    check.ensureUsable();
    LockFileNames.LockFiles files = LockFileNames.of(settings.directory(), lease.lockId());
    ReentrantLock stripe = stripe(lease.lockId());
    stripe.lock();
    try {
      LockRecord current = directory.readRecord(files.lock());
      if (current == null) {
        check.confirmPresent();
        return false;
      }
      if (!current.heldBy(lease.lockId(), lease.ownerToken(), lease.fencingToken())) {
        return false;
      }
      if (lease.deadlineNanos() - System.nanoTime() <= marginNanos) {
        return false;
      }
      return removeOwn(files, lease.lockId(), lease.ownerToken(), lease.fencingToken());
    } catch (IOException e) {
      throw failure("release", lease.lockId(), files, e);
    } finally {
      stripe.unlock();
    }
  }

  /**
   * Renames the lock file to a unique tomb, reads the tomb and deletes it if it holds the given
   * lease ({@code token} {@link #ANY_TOKEN}: any record of this owner token); otherwise puts it
   * back with {@code link}, which fails rather than overwrite a file created meanwhile. {@code
   * false} when the file was not the lease's (or was gone).
   */
  private boolean removeOwn(
      LockFileNames.LockFiles files, String lockId, String ownerToken, long token)
      throws IOException {
    Path tomb = files.tomb(OwnerTokens.newToken());
    if (!directory.moveAway(files.lock(), tomb)) {
      return false;
    }
    LockRecord moved = directory.readRecord(tomb);
    boolean own =
        moved != null
            && (token == ANY_TOKEN
                ? moved.lockId().equals(lockId) && moved.ownerToken().equals(ownerToken)
                : moved.heldBy(lockId, ownerToken, token));
    if (!own) {
      LOG.error(
          "Removing lock '{}' moved another holder's file (clock skew above the allowance?);"
              + " putting it back",
          lockId);
      restore(files.lock(), tomb);
      return false;
    }
    directory.delete(tomb);
    return true;
  }

  @Override
  public LockStatus status(String lockId) {
    checkOpen();
    check.ensureUsable();
    LockFileNames.LockFiles files = LockFileNames.of(settings.directory(), lockId);
    try {
      Observed seen = directory.read(files.lock());
      long now = System.currentTimeMillis();
      if (seen == null) {
        check.confirmPresent();
      }
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
    LockProviderException directoryProblem = check.diagnose(e);
    if (directoryProblem != null) {
      return directoryProblem;
    }
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
