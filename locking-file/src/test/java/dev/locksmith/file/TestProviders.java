package dev.locksmith.file;

import dev.locksmith.core.spi.LockRequest;
import dev.locksmith.core.spi.OwnerTokens;
import dev.locksmith.core.spi.ProviderUrl;
import java.nio.file.Path;
import java.time.Duration;

/** Builds providers and requests for tests. */
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
}
