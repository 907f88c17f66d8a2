package dev.locksmith.file;

import dev.locksmith.core.LockProviderException;
import dev.locksmith.core.LockRecordException;
import dev.locksmith.core.spi.LeaseGrant;
import dev.locksmith.core.spi.LockIdText;
import dev.locksmith.core.spi.LockProvider;
import dev.locksmith.core.spi.LockRequest;
import dev.locksmith.core.spi.LockRequests;
import dev.locksmith.core.spi.LockStatus;
import dev.locksmith.core.spi.RenewalRequest;
import dev.locksmith.core.spi.Uninterruptibly;
import java.io.IOException;
import java.nio.file.FileSystemException;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * Leases kept as lock files in a directory shared by every host (an NFS mount or a local
 * directory). The protocol is described in the module README; in short:
 *
 * <ul>
 *   <li>{@link Acquisition}: acquire opens the fencing counter, creates {@code <name>.lock} with
 *       {@code O_CREAT|O_EXCL}, chooses a token above the counter and never below the wall clock in
 *       microseconds, writes the record through the channel it created, and stores the token in the
 *       counter in place, granting only once the counter file at its name shows that write (else
 *       {@link AcquisitionSlowPath} replaces the counter file);
 *   <li>{@link TakeOver}: a lock file whose expiry passed more than the skew allowance ago (or that
 *       is unreadable and older than the garbled grace) is taken over by whoever first creates the
 *       claim file for exactly that incarnation, re-reads it, replaces the counter file (so that a
 *       paused holder's late counter write lands in a file nobody reads), renames the lock file to
 *       a unique tomb and checks what it moved;
 *   <li>{@link LeaseUpkeep}: renew rewrites the caller's record in place through the descriptor it
 *       checked it through, and release renames the caller's file to a tomb and checks it ({@link
 *       Tombs}); both act only on the caller's own record and only while the caller's local
 *       deadline, minus a margin, has not passed; a batch of renewals is one pass of the same;
 *   <li>{@link Waiting}: acquire with a timeout polls with back-off and wakes early on the
 *       directory watch.
 * </ul>
 *
 * <p>This class checks the call (provider open, ttl, directory usable), hands it on, and turns an
 * I/O failure into a {@link LockProviderException} naming the directory problem or the lock file.
 */
final class FileLockProvider implements LockProvider {
  private final FileLockSettings settings;
  private final LockDirectory directory;
  private final DirectoryWatcher watcher;
  private final DirectoryCheck check;
  private final Acquisition acquisition;
  private final LeaseUpkeep upkeep;
  private final Waiting waiting;
  private final String description;
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
    Tombs tombs = new Tombs(directory, () -> hooks);
    this.acquisition =
        new Acquisition(settings, directory, new TakeOver(settings, directory, tombs), tombs);
    this.upkeep = new LeaseUpkeep(settings, directory, check, tombs);
    this.waiting = new Waiting(settings, watcher);
    this.description = description;
    this.skewMillis = settings.skew().toMillis();
    this.garbledGraceMillis = settings.garbledGrace().toMillis();
    this.marginNanos = settings.renewMargin().toNanos();
  }

  /** Installs test hooks (see {@link TestHooks}); tests only. */
  void hooks(TestHooks testHooks) {
    this.hooks = testHooks;
  }

  @Override
  public Optional<LeaseGrant> tryAcquire(LockRequest request) {
    checkOpen();
    checkTtl(request.ttl());
    // File channels close on an interrupt: the calls below run as on a thread without one.
    return Uninterruptibly.call(
        () -> {
          check.ensureUsable();
          long startNanos = System.nanoTime();
          LockFileNames.LockFiles files = LockFileNames.of(settings.directory(), request.lockId());
          try {
            return acquisition.tryAcquire(request, files, startNanos, hooks);
          } catch (IOException e) {
            throw failure("acquire", request.lockId(), e);
          }
        });
  }

  @Override
  public Optional<LeaseGrant> acquire(LockRequest request, Duration timeout)
      throws InterruptedException {
    checkOpen();
    checkTtl(request.ttl());
    return waiting.acquire(request, timeout, this::tryAcquire);
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
    return Uninterruptibly.call(
        () -> {
          try {
            return upkeep.renew(lease, ttl, hooks);
          } catch (IOException e) {
            throw failure("renew", lease.lockId(), e);
          }
        });
  }

  /**
   * {@inheritDoc}
   *
   * <p>One pass over the directory: one check that it is usable, then each lease's renewal as
   * {@link #renew} does it (its own record only, not within {@code renew-margin} of its local
   * deadline), in request order.
   *
   * @throws LockProviderException when the lock directory cannot be used; a {@link
   *     LockRecordException} when one lease's lock file cannot be read or written (the leases
   *     before it in the batch may have been renewed)
   */
  @Override
  public List<Optional<LeaseGrant>> renewAll(List<RenewalRequest> requests) {
    checkOpen();
    LockRequests.checkRenewals(requests);
    return Uninterruptibly.call(
        () -> upkeep.renewAll(requests, hooks, (lockId, e) -> failure("renew", lockId, e)));
  }

  @Override
  public boolean release(LeaseGrant lease) {
    checkOpen();
    return Uninterruptibly.call(
        () -> {
          try {
            return upkeep.release(lease);
          } catch (IOException e) {
            throw failure("release", lease.lockId(), e);
          }
        });
  }

  @Override
  public LockStatus status(String lockId) {
    checkOpen();
    return Uninterruptibly.call(() -> readStatus(lockId));
  }

  private LockStatus readStatus(String lockId) {
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
      throw failure("read the status of", lockId, e);
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

  /** The lock's file the failure names: its lock file, or its fencing counter, or another. */
  private static String fileAtFault(LockFileNames.LockFiles files, IOException e) {
    String lock = "lock file " + files.lock();
    if (!(e instanceof FileSystemException fse) || fse.getFile() == null) {
      return lock;
    }
    String file = fse.getFile();
    if (file.equals(files.fence().toString())) {
      return "fencing counter " + file;
    }
    return file.equals(files.lock().toString()) ? lock : lock + " (at " + file + ")";
  }

  private LockProviderException failure(String action, String lockId, IOException e) {
    LockProviderException directoryProblem = check.diagnose(e);
    if (directoryProblem != null) {
      return directoryProblem;
    }
    return new LockRecordException(
        "Could not "
            + action
            + " lock "
            + LockIdText.quoted(lockId)
            + " with "
            + fileAtFault(LockFileNames.of(settings.directory(), lockId), e)
            + ": "
            + FileLockSettings.describe(e)
            + " ("
            + e.getClass().getSimpleName()
            + ")",
        e);
  }
}
