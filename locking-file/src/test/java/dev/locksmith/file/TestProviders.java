package dev.locksmith.file;

import static org.awaitility.Awaitility.await;

import dev.locksmith.core.spi.LeaseGrant;
import dev.locksmith.core.spi.LockProvider;
import dev.locksmith.core.spi.LockRequest;
import dev.locksmith.core.spi.OwnerTokens;
import dev.locksmith.core.spi.ProviderUrl;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;

/** Builds providers and requests for tests, and acts on lock directories. */
final class TestProviders {
  private TestProviders() {}

  static String url(Path directory, String query) {
    return directory.toUri() + (query.isEmpty() ? "" : "?" + query);
  }

  static FileLockProvider open(Path directory, String query) {
    return (FileLockProvider)
        new FileLockProviderFactory().create(ProviderUrl.parse(url(directory, query)));
  }

  static LockRequest request(String lockId, Duration ttl) {
    return new LockRequest(lockId, OwnerTokens.newToken(), ttl, OwnerTokens.describeCaller());
  }

  /**
   * Tries {@code lockId} through {@code provider} every 20 ms until it is granted, as once the
   * holder's lease has ended and the lock file is taken over; fails after {@code atMost}.
   */
  static LeaseGrant awaitGranted(
      LockProvider provider, String lockId, Duration ttl, Duration atMost) {
    return await()
        .atMost(atMost)
        .pollInterval(Duration.ofMillis(20))
        .until(() -> provider.tryAcquire(request(lockId, ttl)), Optional::isPresent)
        .orElseThrow();
  }

  /** Deletes a lock directory and the files in it (it holds no directories). */
  static void deleteDirectory(Path directory) throws IOException {
    try (var files = Files.list(directory)) {
      for (Path file : files.toList()) {
        Files.delete(file);
      }
    }
    Files.delete(directory);
  }
}
