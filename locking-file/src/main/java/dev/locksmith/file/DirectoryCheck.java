package dev.locksmith.file;

import dev.locksmith.core.LockProviderException;
import dev.locksmith.core.spi.OwnerTokens;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.Objects;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Whether the lock directory can be used now: it exists (created first with {@code create-dirs}),
 * is a directory, and this process can create files and hard links in it. Checked by the first call
 * and again by the first call after one found the directory unusable; a call that finds it unusable
 * fails with a one-line {@link LockProviderException} naming the directory and the reason, the I/O
 * error as its cause. Calls work again as soon as the directory does.
 */
final class DirectoryCheck {
  private static final Logger LOG = LoggerFactory.getLogger(DirectoryCheck.class);

  private final Path directory;
  private final boolean createDirs;
  private volatile boolean usable;
  private volatile @Nullable String lastProblem;

  DirectoryCheck(Path directory, boolean createDirs) {
    this.directory = directory;
    this.createDirs = createDirs;
  }

  /**
   * Returns at once while the directory is known to be usable; otherwise checks it.
   *
   * @throws LockProviderException when it cannot be used now
   */
  void ensureUsable() {
    if (!usable) {
      check();
    }
  }

  /**
   * Confirms the directory is still there after a call found one of its files missing, so that a
   * vanished directory (deleted, or its share unmounted) is not taken for a free lock or a lease
   * that ended.
   *
   * @throws LockProviderException when the directory is gone or no longer a directory
   */
  void confirmPresent() {
    BasicFileAttributes attributes;
    try {
      attributes = Files.readAttributes(directory, BasicFileAttributes.class);
    } catch (IOException e) {
      throw unusable(missingOrUnreadable(e), e);
    }
    if (!attributes.isDirectory()) {
      throw unusable("is not a directory", null);
    }
  }

  /**
   * Turns an I/O error of a call into its failure: when the directory is the reason (gone, not a
   * directory, not writable), names the directory and why; otherwise {@code null}, and the caller
   * reports the error as it is.
   */
  @Nullable LockProviderException diagnose(IOException e) {
    try {
      usable = false;
      if (check()) {
        return new LockProviderException(
            "lock directory "
                + directory
                + " was missing (deleted, or its share not mounted) and has been created again"
                + " (create-dirs=true); the next call uses it",
            e);
      }
      return null;
    } catch (LockProviderException problem) {
      return new LockProviderException(
          Objects.requireNonNullElse(problem.getMessage(), problem.toString()), e);
    }
  }

  /** Checks the directory; whether it had to be created. */
  private boolean check() {
    BasicFileAttributes attributes;
    boolean created = false;
    try {
      attributes = Files.readAttributes(directory, BasicFileAttributes.class);
    } catch (NoSuchFileException e) {
      if (!createDirs) {
        throw unusable(missingOrUnreadable(e), e);
      }
      try {
        Files.createDirectories(directory);
        created = true;
        LOG.info("Created lock directory {}", directory);
        attributes = Files.readAttributes(directory, BasicFileAttributes.class);
      } catch (IOException cannot) {
        throw unusable(
            "does not exist and cannot be created: " + FileLockSettings.describe(cannot), cannot);
      }
    } catch (IOException e) {
      throw unusable(missingOrUnreadable(e), e);
    }
    if (!attributes.isDirectory()) {
      throw unusable("is not a directory", null);
    }
    Path probe = directory.resolve(".locksmith-probe-" + OwnerTokens.newToken());
    try {
      Files.createFile(probe);
    } catch (IOException e) {
      throw unusable("is not writable by this process: " + FileLockSettings.describe(e), e);
    }
    Path link = directory.resolve(probe.getFileName() + "-link");
    try {
      Files.createLink(link, probe);
    } catch (IOException | UnsupportedOperationException e) {
      throw unusable(
          "is on a file system without hard links, which the file provider needs: "
              + (e instanceof IOException io ? FileLockSettings.describe(io) : e.toString()),
          e);
    } finally {
      deleteQuietly(link);
      deleteQuietly(probe);
    }
    usable = true;
    String problem = lastProblem;
    if (problem != null) {
      lastProblem = null;
      LOG.info("Lock directory {} is usable again (it {})", directory, problem);
    }
    return created;
  }

  private static String missingOrUnreadable(IOException e) {
    if (e instanceof NoSuchFileException) {
      return "does not exist (not created yet, deleted, or its share not mounted); create it or"
          + " add create-dirs=true to the URL";
    }
    return "cannot be read: " + FileLockSettings.describe(e);
  }

  private LockProviderException unusable(String why, @Nullable Throwable cause) {
    usable = false;
    if (!why.equals(lastProblem)) {
      LOG.warn("Lock directory {} {}", directory, why);
      lastProblem = why;
    }
    LockProviderException e = new LockProviderException("lock directory " + directory + " " + why);
    if (cause != null) {
      e.initCause(cause);
    }
    return e;
  }

  private static void deleteQuietly(Path path) {
    try {
      Files.deleteIfExists(path);
    } catch (IOException e) {
      LOG.debug("Could not delete probe file {}: {}", path, e.toString());
    }
  }
}
