package dev.locksmith.cli;

import dev.locksmith.file.FileLockMaintenance;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code locksmith prune}: reclaims a lock directory's per-lock files of locks long idle. */
@Command(
    name = "prune",
    description = {
      "Deletes the fencing counter files of file: locks that are not held and were last granted"
          + " more than --older-than ago, and leftovers of processes that died half-way.",
      "Safe while hosts use the directory; tokens keep rising as long as no two hosts' clocks"
          + " differ by more than --older-than."
    },
    mixinStandardHelpOptions = true)
final class PruneCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Option(
      names = "--url",
      required = true,
      description = "The file: provider URL (file:///mnt/shared/locks) or the directory itself.")
  String url;

  @Option(
      names = "--older-than",
      defaultValue = "1h",
      description =
          "How long a lock must have been idle; more than any two hosts' clocks differ"
              + " (default: ${DEFAULT-VALUE}, at least 1m).")
  Duration olderThan;

  @Override
  public Integer call() {
    Path directory = directory(url);
    if (!Files.isDirectory(directory)) {
      throw Failure.usage("--url " + url + ": no such directory " + directory);
    }
    if (olderThan.compareTo(FileLockMaintenance.MINIMUM_AGE) < 0) {
      throw Failure.usage(
          "--older-than must be at least 1m (more than any two hosts' clocks differ), was "
              + olderThan.toMillis()
              + " ms");
    }
    FileLockMaintenance.PruneReport report;
    try {
      report = FileLockMaintenance.prune(directory, olderThan);
    } catch (IOException e) {
      throw Failure.unavailable("cannot prune " + directory + ": " + e, e);
    }
    spec.commandLine()
        .getOut()
        .printf(
            "pruned %s: %d counter file(s) deleted, %d kept, %d leftover(s) deleted, %d bytes"
                + " freed%n",
            directory,
            report.countersDeleted(),
            report.countersKept(),
            report.leftoversDeleted(),
            report.bytesDeleted());
    return 0;
  }

  /** The directory of a {@code file:} URL (its query ignored), or a plain path. */
  private static Path directory(String url) {
    if (!url.startsWith("file:")) {
      if (url.contains("://")) {
        throw Failure.usage("--url " + url + ": prune works on file: lock directories only");
      }
      return Path.of(url);
    }
    try {
      String withoutQuery = url.contains("?") ? url.substring(0, url.indexOf('?')) : url;
      return Path.of(URI.create(withoutQuery));
    } catch (IllegalArgumentException e) {
      throw Failure.usage("--url " + url + ": not a file: URL with an absolute path", e);
    }
  }
}
