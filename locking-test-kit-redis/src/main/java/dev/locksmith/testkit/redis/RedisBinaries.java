package dev.locksmith.testkit.redis;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.locks.ReentrantLock;
import org.jspecify.annotations.Nullable;

/**
 * Finds a {@code redis-server} executable: from the {@code PATH}, or the one embedded-redis ships.
 */
public final class RedisBinaries {
  private static final ReentrantLock EXTRACT_LOCK = new ReentrantLock();
  private static volatile @Nullable Path extracted;

  private RedisBinaries() {}

  /**
   * The {@code redis-server} on the {@code PATH}, if there is one.
   *
   * @return the binary, if one is on the PATH
   */
  public static Optional<Path> onPath() {
    String path = System.getenv("PATH");
    if (path == null) {
      return Optional.empty();
    }
    for (String dir : path.split(File.pathSeparator)) {
      if (dir.isEmpty()) {
        continue;
      }
      Path candidate = Path.of(dir, "redis-server");
      if (Files.isRegularFile(candidate) && Files.isExecutable(candidate)) {
        return Optional.of(candidate);
      }
    }
    return Optional.empty();
  }

  /**
   * The {@code PATH}'s {@code redis-server}, else the embedded one.
   *
   * @return the binary
   */
  public static Path find() {
    return onPath().orElseGet(RedisBinaries::embedded);
  }

  /**
   * The {@code redis-server} that {@code com.github.codemonstur:embedded-redis} ships for this
   * operating system and architecture, copied once per JVM to a temporary executable file.
   *
   * @return the binary
   * @throws IllegalStateException when the jar has no binary for this platform
   */
  public static Path embedded() {
    Path done = extracted;
    if (done != null) {
      return done;
    }
    EXTRACT_LOCK.lock();
    try {
      if (extracted == null) {
        extracted = extract(resourceName());
      }
      return extracted;
    } finally {
      EXTRACT_LOCK.unlock();
    }
  }

  static String resourceName() {
    String os = System.getProperty("os.name", "").toLowerCase(Locale.ROOT);
    String arch = System.getProperty("os.arch", "").toLowerCase(Locale.ROOT);
    boolean arm = arch.equals("aarch64") || arch.equals("arm64");
    boolean x64 = arch.equals("amd64") || arch.equals("x86_64");
    if (os.contains("linux")) {
      if (x64) {
        return "redis-server-6.2.6-v5-linux-amd64";
      }
      if (arm) {
        return "redis-server-6.2.7-linux-arm64";
      }
      if (arch.equals("x86") || arch.equals("i386")) {
        return "redis-server-6.2.7-linux-386";
      }
    } else if (os.contains("mac")) {
      return arm ? "redis-server-6.2.6-v5-darwin-arm64" : "redis-server-6.2.6-v5-darwin-amd64";
    } else if (os.contains("windows") && x64) {
      return "redis-server-5.0.14.1-windows-amd64.exe";
    }
    throw new IllegalStateException(
        "embedded-redis ships no redis-server for "
            + os
            + "/"
            + arch
            + "; put redis-server on the PATH or set LOCKSMITH_TEST_REDIS_URL");
  }

  private static Path extract(String resource) {
    try (InputStream in = RedisBinaries.class.getClassLoader().getResourceAsStream(resource)) {
      if (in == null) {
        throw new IllegalStateException(
            "resource '"
                + resource
                + "' is not on the class path; is com.github.codemonstur:embedded-redis there?");
      }
      Path dir = Files.createTempDirectory("locksmith-redis-bin");
      Path binary = dir.resolve(resource);
      Files.copy(in, binary, StandardCopyOption.REPLACE_EXISTING);
      if (!binary.toFile().setExecutable(true, true)) {
        throw new IOException("cannot make " + binary + " executable");
      }
      binary.toFile().deleteOnExit();
      dir.toFile().deleteOnExit();
      return binary;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot extract the embedded redis-server " + resource, e);
    }
  }
}
