package dev.locksmith.file;

import dev.locksmith.core.spi.LeaseGrant;
import dev.locksmith.core.spi.LockIdText;
import dev.locksmith.core.spi.RenewalRequest;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BiFunction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Renewing and releasing a held lease. Both act only on the caller's own record, and only while the
 * caller's local deadline, minus the renew margin, has not passed: renew rewrites the record in
 * place through the descriptor it checked it through, release renames the file to a tomb and checks
 * what moved. Within one provider, renew and release of one lock id are serialised by a striped
 * lock, so a concurrent renew cannot resurrect a file another thread just released.
 */
final class LeaseUpkeep {
  // Logged under the provider's name, as operators configure it.
  private static final Logger LOG = LoggerFactory.getLogger(FileLockProvider.class);
  private static final int STRIPES = 64;

  private final FileLockSettings settings;
  private final LockDirectory directory;
  private final DirectoryCheck check;
  private final Tombs tombs;
  private final long marginNanos;
  private final ReentrantLock[] stripes = new ReentrantLock[STRIPES];

  LeaseUpkeep(
      FileLockSettings settings, LockDirectory directory, DirectoryCheck check, Tombs tombs) {
    this.settings = settings;
    this.directory = directory;
    this.check = check;
    this.tombs = tombs;
    this.marginNanos = settings.renewMargin().toNanos();
    for (int i = 0; i < STRIPES; i++) {
      stripes[i] = new ReentrantLock();
    }
  }

  /**
   * Extends {@code lease} to {@code ttl} from now; empty when it is lost or too close to its end.
   */
  Optional<LeaseGrant> renew(LeaseGrant lease, Duration ttl, TestHooks hooks) throws IOException {
    if (ttl.isNegative() || ttl.isZero()) {
      throw new IllegalArgumentException("ttl must be positive, was " + ttl);
    }
    if (lease.deadlineNanos() - System.nanoTime() <= marginNanos) {
      return Optional.empty();
    }
    check.ensureUsable();
    return renewInPass(lease, ttl, hooks);
  }

  /**
   * Renews every lease of {@code requests} in one pass, after one check that the directory is
   * usable; each answer is what {@link #renew} gives for its lease.
   *
   * @param failure turns an I/O failure of one lease's renewal into what the call throws (the
   *     leases before it may have been renewed)
   */
  List<Optional<LeaseGrant>> renewAll(
      List<RenewalRequest> requests,
      TestHooks hooks,
      BiFunction<String, IOException, RuntimeException> failure) {
    List<Optional<LeaseGrant>> answers = new ArrayList<>(requests.size());
    if (requests.isEmpty()) {
      return answers;
    }
    check.ensureUsable();
    for (RenewalRequest request : requests) {
      LeaseGrant lease = request.lease();
      try {
        answers.add(renewInPass(lease, request.ttl(), hooks));
      } catch (IOException e) {
        throw failure.apply(lease.lockId(), e);
      }
    }
    return answers;
  }

  /** The body of {@link #renew}, once the directory is known to be usable. */
  private Optional<LeaseGrant> renewInPass(LeaseGrant lease, Duration ttl, TestHooks hooks)
      throws IOException {
    long startNanos = System.nanoTime();
    if (lease.deadlineNanos() - startNanos <= marginNanos) {
      return Optional.empty();
    }
    LockFileNames.LockFiles files = LockFileNames.of(settings.directory(), lease.lockId());
    ReentrantLock stripe = stripe(lease.lockId());
    stripe.lock();
    try {
      long ttlMillis = LockRecord.ttlMillis(ttl);
      LockRecord renewed;
      // Read and write through one descriptor: the write can only land in the file whose record
      // was checked, even if a stealer moved it away or another holder's file took the name
      // meanwhile (the write then goes to the moved-away file, which nobody reads again).
      try (FileChannel channel = directory.openExisting(files.lock())) {
        if (channel == null) {
          check.confirmPresent();
          return Optional.empty();
        }
        LockRecord record = directory.readRecord(channel, lease.lockId());
        if (record == null
            || !record.heldBy(lease.lockId(), lease.ownerToken(), lease.fencingToken())) {
          return Optional.empty();
        }
        renewed = record.renewed(System.currentTimeMillis() + ttlMillis, ttlMillis);
        if (lease.deadlineNanos() - System.nanoTime() <= marginNanos) {
          return Optional.empty();
        }
        try {
          hooks.beforeRenewWrite(lease.lockId());
          directory.rewrite(channel, renewed.encode());
        } catch (IOException | UncheckedIOException e) {
          if (!putBack(channel, record, lease.lockId(), e)) {
            return Optional.empty();
          }
          throw e;
        }
      }
      // Only the name tells whether that file is still the lock file.
      if (!renewed.equals(directory.readRecord(files.lock()))) {
        LOG.warn(
            "Renewing lock {} found its lock file taken over while it renewed (clock skew above"
                + " the allowance, or a pause?); the lease is lost",
            LockIdText.quoted(lease.lockId()));
        return Optional.empty();
      }
      return Optional.of(lease.renewed(ttl, startNanos + ttl.toNanos()));
    } finally {
      stripe.unlock();
    }
  }

  /**
   * After a renewal's write failed, perhaps part-way, writes the record it replaced back, so that
   * the lease holds until its deadline as before (the failure is then reported, and the renewal
   * tried again). {@code false} when that fails too: the file may be left unreadable, which others
   * take over once it is {@code garbled-grace} old, however long the lease had left, so the lease
   * counts as lost.
   */
  private boolean putBack(
      FileChannel channel, LockRecord replaced, String lockId, Exception failure) {
    try {
      directory.rewrite(channel, replaced.encode());
      return true;
    } catch (IOException | RuntimeException e) {
      failure.addSuppressed(e);
      LOG.warn(
          "Renewing lock {} failed and its record could not be written back; others may take"
              + " the lock file over once it is garbled-grace old, so the lease is lost: {}",
          LockIdText.quoted(lockId),
          failure.toString());
      return false;
    }
  }

  /** Removes {@code lease}'s lock file; {@code false} when it is lost or too close to its end. */
  boolean release(LeaseGrant lease) throws IOException {
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
      return tombs.removeOwn(files, lease.lockId(), lease.ownerToken(), lease.fencingToken());
    } finally {
      stripe.unlock();
    }
  }

  private ReentrantLock stripe(String lockId) {
    return stripes[Math.floorMod(lockId.hashCode(), STRIPES)];
  }
}
