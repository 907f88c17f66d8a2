package dev.locksmith.file;

import dev.locksmith.core.spi.OwnerTokens;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Maintenance of a lock directory: reclaiming the state it keeps per lock id.
 *
 * <p>Each lock id that was ever granted leaves a fencing counter file ({@code <base>.fence}: one 4
 * KiB block for an id granted once, two for an id granted again, plus its directory entry and
 * inode). Fencing tokens never fall below the wall clock in microseconds, so a counter whose last
 * token is older than any difference between the hosts' clocks is no longer needed to keep tokens
 * rising: {@link #prune} deletes such counters. The module README gives the argument and its
 * assumptions.
 */
public final class FileLockMaintenance {
  /**
   * The least {@code olderThan} that {@link #prune} accepts. Pick more: above the largest
   * difference between any two hosts' clocks plus the largest step back any clock may take (an hour
   * is a safe default; a day costs one counter file per id used that day).
   */
  public static final Duration MINIMUM_AGE = Duration.ofMinutes(1);

  private static final Logger LOG = LoggerFactory.getLogger(FileLockMaintenance.class);

  private FileLockMaintenance() {}

  /**
   * What one {@link #prune} did.
   *
   * @param countersDeleted counter files deleted
   * @param countersKept counter files kept: their lock file exists (held, or left by a holder that
   *     died and not yet taken over), their last token or change is younger than {@code olderThan},
   *     they are unreadable (left for an operator, see the README), or an acquisition started while
   *     they were checked
   * @param leftoversDeleted files left behind by processes that died half-way (temporary files,
   *     tombs, claims, counter files taken away), older than {@code olderThan}, deleted
   * @param bytesDeleted the sizes of all deleted files added up
   */
  public record PruneReport(
      int countersDeleted, int countersKept, int leftoversDeleted, long bytesDeleted) {}

  /**
   * Deletes the fencing counter files of locks that are not held and whose last token was granted
   * more than {@code olderThan} ago, and files left behind by processes that died half-way that are
   * older than that. Safe while providers on any host use the directory: a counter is first renamed
   * away, then checked again (no lock file, last token and change still old), and put back as a
   * copy if an acquisition started meanwhile; tokens granted after a counter was deleted come from
   * the clock alone and are above every token it held, provided no two hosts' clocks differ by more
   * than {@code olderThan} (see the module README). Lock files are never touched. Only run it when
   * every host uses a version of the provider that floors tokens by the clock.
   *
   * @param directory the lock directory (the path of a {@code file:} provider URL)
   * @param olderThan how long a lock must have been idle; at least {@link #MINIMUM_AGE}, and more
   *     than half the largest {@code garbled-grace} of the providers on the directory, since a live
   *     take-over claim may be that old
   * @return what was deleted and kept
   * @throws IllegalArgumentException when {@code olderThan} is below {@link #MINIMUM_AGE}
   * @throws IOException when the directory cannot be listed or a file cannot be renamed or deleted
   */
  public static PruneReport prune(Path directory, Duration olderThan) throws IOException {
    if (olderThan.compareTo(MINIMUM_AGE) < 0) {
      throw new IllegalArgumentException(
          "olderThan must be at least "
              + MINIMUM_AGE
              + " (more than any two hosts' clocks differ), was "
              + olderThan);
    }
    return prune(directory, olderThan, Clock.systemUTC(), true, TestHooks.NONE);
  }

  /**
   * {@link #prune(Path, Duration)} with a given clock and test hooks, and no lower bound. A test
   * that runs it with a clock ahead (as if everything were idle) while processes work in the
   * directory passes {@code leftovers = false}: their files in flight would look old too.
   */
  static PruneReport prune(
      Path directory, Duration olderThan, Clock clock, boolean leftovers, TestHooks hooks)
      throws IOException {
    Path dir = directory.toAbsolutePath().normalize();
    Pruner pruner = new Pruner(dir, olderThan, clock, leftovers, hooks);
    try (DirectoryStream<Path> entries = Files.newDirectoryStream(dir)) {
      for (Path entry : entries) {
        pruner.consider(entry);
      }
    }
    return pruner.report();
  }

  /** One pass over a directory. */
  private static final class Pruner {
    private final Path directory;
    private final Clock clock;
    private final TestHooks hooks;
    private final boolean leftovers;
    private final long cutoffMillis;
    private final long olderThanMicros;
    private final LastTouched lastTouched;
    private int countersDeleted;
    private int countersKept;
    private int leftoversDeleted;
    private long bytesDeleted;

    Pruner(Path directory, Duration olderThan, Clock clock, boolean leftovers, TestHooks hooks) {
      this.directory = directory;
      this.clock = clock;
      this.leftovers = leftovers;
      this.hooks = hooks;
      this.cutoffMillis = clock.millis() - olderThan.toMillis();
      this.olderThanMicros = olderThan.toNanos() / 1_000;
      this.lastTouched = new LastTouched(directory);
    }

    PruneReport report() {
      return new PruneReport(countersDeleted, countersKept, leftoversDeleted, bytesDeleted);
    }

    void consider(Path entry) throws IOException {
      String name = entry.getFileName().toString();
      if (name.endsWith(LockFileNames.FENCE_SUFFIX)) {
        counter(entry, name.substring(0, name.length() - LockFileNames.FENCE_SUFFIX.length()));
      } else if (!leftovers) {
        return;
      } else if (name.endsWith(LockFileNames.TAKEN_SUFFIX)
          || name.endsWith(LockFileNames.PRUNED_SUFFIX)) {
        takenAway(entry);
      } else if (name.endsWith(".tmp") || name.endsWith(".tomb") || name.endsWith(".claim")) {
        BasicFileAttributes attributes = attributes(entry);
        if (attributes != null && lastTouched.millis(entry, attributes) < cutoffMillis) {
          deleteLeftover(entry, attributes.size());
        }
      }
    }

    /** The highest token a deletable counter may hold: the clock floor {@code olderThan} ago. */
    private long tokenLimit() {
      Instant now = clock.instant();
      return now.getEpochSecond() * 1_000_000 + now.getNano() / 1_000 - olderThanMicros;
    }

    private void counter(Path fence, String base) throws IOException {
      Path lock = directory.resolve(base + LockFileNames.LOCK_SUFFIX);
      BasicFileAttributes attributes = attributes(fence);
      if (attributes == null) {
        return;
      }
      byte[] head = CounterHead.read(fence);
      String lockId = head == null ? null : CounterHead.lockIdOf(head);
      if (head == null
          || lockId == null
          || Files.exists(lock)
          || attributes.lastModifiedTime().toMillis() >= cutoffMillis
          || !LockFileNames.baseName(lockId).equals(base)) {
        countersKept++;
        return;
      }
      LockFileNames.LockFiles files = new LockFileNames.LockFiles(directory, base);
      long value = CounterHead.value(fence, head, files, lockId);
      if (value < 0 || value > tokenLimit()) {
        countersKept++;
        return;
      }
      // Take it away first: from here no acquisition can confirm an in-place update of it, and
      // one that opens the counter finds none and takes its token from the clock.
      Path taken = files.pruned(OwnerTokens.newToken());
      LockDirectory plain = new LockDirectory(FileLockSettings.forMaintenance(directory, null));
      if (!plain.moveAway(fence, taken)) {
        return;
      }
      hooks.afterPruneTake(lockId);
      BasicFileAttributes again = attributes(taken);
      long valueAgain = CounterHead.value(taken, files, lockId);
      if (again == null
          || Files.exists(lock)
          || again.lastModifiedTime().toMillis() >= cutoffMillis
          || valueAgain < 0
          || valueAgain > tokenLimit()) {
        putBack(taken, files, lockId);
        countersKept++;
        return;
      }
      Files.deleteIfExists(taken);
      countersDeleted++;
      bytesDeleted += again.size();
    }

    /**
     * An acquisition started while the counter was away: publish a copy (never the file itself,
     * which a paused writer may still hold open) with at least its value, merging with a counter
     * created meanwhile.
     */
    private void putBack(Path taken, LockFileNames.LockFiles files, String lockId)
        throws IOException {
      Set<PosixFilePermission> permissions = null;
      if (directory.getFileSystem().supportedFileAttributeViews().contains("posix")) {
        permissions = Files.getPosixFilePermissions(taken);
      }
      LockDirectory restoring =
          new LockDirectory(FileLockSettings.forMaintenance(directory, permissions));
      CounterReplacement.replace(
          restoring,
          files,
          lockId,
          CounterReplacement.Goal.RESTORE,
          null,
          List.of(taken),
          value -> value,
          CounterFile.newStamp(),
          () -> {});
    }

    /**
     * A counter file a replacement or a prune took away and never finished with: it may hold the
     * only copy of a value, so it goes by the counter rule (old change and old last token).
     */
    private void takenAway(Path file) throws IOException {
      BasicFileAttributes attributes = attributes(file);
      if (attributes == null || lastTouched.millis(file, attributes) >= cutoffMillis) {
        return;
      }
      byte[] head = CounterHead.read(file);
      if (head == null) {
        return;
      }
      String lockId = CounterHead.lockIdOf(head);
      if (lockId == null) {
        LOG.warn("Not pruning {}: it does not start like a counter file", file);
        return;
      }
      String name = file.getFileName().toString();
      LockFileNames.LockFiles files =
          new LockFileNames.LockFiles(directory, LockFileNames.baseName(lockId));
      if (!name.startsWith(files.base() + ".")) {
        return;
      }
      long value = CounterHead.value(file, head, files, lockId);
      if (value < 0 || value > tokenLimit()) {
        return;
      }
      deleteLeftover(file, attributes.size());
    }

    private void deleteLeftover(Path file, long size) throws IOException {
      if (Files.deleteIfExists(file)) {
        leftoversDeleted++;
        bytesDeleted += size;
      }
    }

    private static @Nullable BasicFileAttributes attributes(Path file) throws IOException {
      try {
        return Files.readAttributes(file, BasicFileAttributes.class);
      } catch (NoSuchFileException e) {
        return null;
      }
    }
  }
}
