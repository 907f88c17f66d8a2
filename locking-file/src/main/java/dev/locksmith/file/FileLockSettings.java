package dev.locksmith.file;

import dev.locksmith.core.Durations;
import dev.locksmith.core.spi.ProviderUrl;
import java.io.IOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The settings of a file provider, read from its URL.
 *
 * @param directory the lock directory, absolute and normalised
 * @param skew how long past its expiry a lease still counts as held, to allow for clock skew
 *     between hosts
 * @param pollMax the longest pause between two polls of a waiting {@code acquire}
 * @param garbledGrace how long after its last modification an unreadable lock file still counts as
 *     held
 * @param renewMargin renew and release refuse to act when less than this is left of the local lease
 * @param permissions the POSIX permissions given to created files, or {@code null} where the file
 *     system has none
 * @param watch whether waiters also watch the directory for deletions (same host only)
 * @param sync whether writes are forced to storage before they count
 * @param createDirs whether a missing directory (and its parents) is created, by the first call
 *     that finds it missing
 */
record FileLockSettings(
    Path directory,
    Duration skew,
    Duration pollMax,
    Duration garbledGrace,
    Duration renewMargin,
    @Nullable Set<PosixFilePermission> permissions,
    boolean watch,
    boolean sync,
    boolean createDirs) {
  private static final Logger LOG = LoggerFactory.getLogger(FileLockSettings.class);

  static final Set<String> PARAMETERS =
      Set.of(
          "skew",
          "poll-max",
          "garbled-grace",
          "renew-margin",
          "create-dirs",
          "mode",
          "watch",
          "sync");
  static final Duration DEFAULT_SKEW = Duration.ofSeconds(2);
  static final Duration DEFAULT_POLL_MAX = Duration.ofMillis(250);
  static final Duration DEFAULT_GARBLED_GRACE = Duration.ofSeconds(30);
  static final Duration DEFAULT_RENEW_MARGIN = Duration.ofMillis(20);
  static final String DEFAULT_MODE = "rw-rw----";

  /** How long creation waits for the file system to tell whether the path is a regular file. */
  private static final Duration STAT_TIMEOUT = Duration.ofMillis(500);

  /**
   * Reads and checks the settings: unknown parameters, bad values and a path that is a regular file
   * fail with a message naming the URL part. The directory itself is not needed: one that is
   * missing, not writable or on a mount that does not answer is found by the calls (see {@link
   * DirectoryCheck}).
   */
  static FileLockSettings from(ProviderUrl url) {
    url.requireOnly(PARAMETERS);
    if (url.uri().isOpaque()) {
      throw url.error("is not an absolute file URL; expected file:///absolute/directory");
    }
    String authority = url.uri().getRawAuthority();
    if (authority != null && !authority.isEmpty() && !authority.equalsIgnoreCase("localhost")) {
      throw url.error(
          "names host '"
              + authority
              + "'; mount the share locally and use file:///mount/point/dir (three slashes)");
    }
    Duration skew = url.durationParameter("skew", DEFAULT_SKEW);
    Duration pollMax = url.durationParameter("poll-max", DEFAULT_POLL_MAX);
    if (pollMax.isZero()) {
      throw url.error("parameter 'poll-max' must be positive, was 0");
    }
    Duration garbledGrace = url.durationParameter("garbled-grace", DEFAULT_GARBLED_GRACE);
    if (garbledGrace.compareTo(Duration.ofSeconds(1)) < 0) {
      throw url.error(
          "parameter 'garbled-grace' must be at least 1s (it must outlast any write of a lock"
              + " file), was "
              + url.parameter("garbled-grace"));
    }
    if (garbledGrace.compareTo(skew.multipliedBy(2)) <= 0) {
      // A live claim is at most half the grace old, and a clock apart by up to the skew from the
      // file server's makes it look older by that much: it must still look younger than the grace.
      throw url.error(
          "parameter 'garbled-grace' ("
              + Durations.format(garbledGrace)
              + ") must be more than twice 'skew' ("
              + Durations.format(skew)
              + "): a take-over's claim counts as live for up to half of it, judged by clocks that"
              + " may differ by up to 'skew'");
    }
    Duration renewMargin = url.durationParameter("renew-margin", DEFAULT_RENEW_MARGIN);
    if (renewMargin.multipliedBy(2).compareTo(Durations.MAX) >= 0) {
      throw url.error(
          "parameter 'renew-margin' ("
              + Durations.format(renewMargin)
              + ") leaves no usable TTL: a TTL must exceed twice it, and be at most "
              + Durations.format(Durations.MAX));
    }
    boolean createDirs = url.booleanParameter("create-dirs", false);
    boolean watch = url.booleanParameter("watch", true);
    boolean sync = url.booleanParameter("sync", false);
    Path directory = directory(url);
    checkNotAFile(url, directory);
    Set<PosixFilePermission> permissions = permissions(url, directory);
    return new FileLockSettings(
        directory, skew, pollMax, garbledGrace, renewMargin, permissions, watch, sync, createDirs);
  }

  /**
   * Settings for maintenance of a directory outside any provider: default timings, no watch, and
   * every write forced to storage (maintenance writes rarely).
   */
  static FileLockSettings forMaintenance(
      Path directory, @Nullable Set<PosixFilePermission> permissions) {
    return new FileLockSettings(
        directory,
        DEFAULT_SKEW,
        DEFAULT_POLL_MAX,
        DEFAULT_GARBLED_GRACE,
        DEFAULT_RENEW_MARGIN,
        permissions,
        false,
        true,
        false);
  }

  private static Path directory(ProviderUrl url) {
    String path = url.path();
    if (path.isEmpty() || path.equals("/")) {
      throw url.error(
          "has no directory path (or the root directory); expected file:///absolute/directory");
    }
    try {
      Path result = Path.of(new URI("file", null, path, null)).toAbsolutePath().normalize();
      if (!result.isAbsolute()) {
        throw url.error("path '" + path + "' is not absolute");
      }
      if (result.getParent() == null) {
        throw url.error(
            "path '" + path + "' is the root directory; expected file:///absolute/directory");
      }
      return result;
    } catch (URISyntaxException | IllegalArgumentException e) {
      throw url.error("path '" + path + "' is not a valid directory path: " + e.getMessage());
    }
  }

  private static @Nullable Set<PosixFilePermission> permissions(ProviderUrl url, Path directory) {
    String mode = url.parameter("mode");
    Set<PosixFilePermission> permissions;
    try {
      permissions = PosixFilePermissions.fromString(mode == null ? DEFAULT_MODE : mode.strip());
    } catch (IllegalArgumentException e) {
      throw url.error(
          "parameter 'mode' is not a permission string such as rw-rw----: '" + mode + "'");
    }
    if (!permissions.contains(PosixFilePermission.OWNER_READ)
        || !permissions.contains(PosixFilePermission.OWNER_WRITE)) {
      throw url.error(
          "parameter 'mode' must let the owner read and write (rw-......), was " + mode);
    }
    boolean posix = directory.getFileSystem().supportedFileAttributeViews().contains("posix");
    if (!posix) {
      if (mode != null) {
        throw url.error(
            "parameter 'mode' is given but the file system of '"
                + directory
                + "' has no POSIX permissions");
      }
      return null;
    }
    return permissions;
  }

  /**
   * Refuses a path that exists and is not a directory: a wrong URL, not an outage. Anything else
   * (missing, unreadable, a mount that does not answer within {@link #STAT_TIMEOUT}) is left to the
   * calls, so that creating the provider never waits for the directory.
   */
  private static void checkNotAFile(ProviderUrl url, Path directory) {
    CompletableFuture<@Nullable BasicFileAttributes> stat =
        CompletableFuture.supplyAsync(
            () -> {
              try {
                return Files.readAttributes(directory, BasicFileAttributes.class);
              } catch (IOException | RuntimeException e) {
                return null;
              }
            },
            task -> {
              Thread thread = new Thread(task, "locksmith-file-stat");
              thread.setDaemon(true);
              thread.start();
            });
    BasicFileAttributes attributes;
    try {
      attributes = stat.get(STAT_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
    } catch (TimeoutException e) {
      LOG.warn(
          "Lock directory {} did not answer within {} ms (a mount that is not responding?);"
              + " calls will check it",
          directory,
          STAT_TIMEOUT.toMillis());
      return;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return;
    } catch (ExecutionException e) {
      return;
    }
    if (attributes != null && !attributes.isDirectory()) {
      throw url.error("path '" + directory + "' is not a directory");
    }
  }

  static String describe(IOException e) {
    if (e instanceof AccessDeniedException) {
      return "permission denied";
    }
    if (e instanceof FileSystemException fse && fse.getReason() != null) {
      return fse.getReason();
    }
    return e.toString();
  }
}
