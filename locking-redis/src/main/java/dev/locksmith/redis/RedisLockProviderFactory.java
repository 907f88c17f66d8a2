package dev.locksmith.redis;

import dev.locksmith.core.LockConfigurationException;
import dev.locksmith.core.spi.ProviderUrl;
import dev.locksmith.core.spi.SchemeProviderFactory;
import java.util.concurrent.TimeUnit;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;

/**
 * Creates {@link RedisLockProvider}s for {@code redis://} and {@code rediss://} (TLS) URLs, each
 * with a Redisson client of its own that the provider shuts down when closed. Creating one checks
 * the URL only: the client connects at the first call (Redisson's lazy initialization), so an
 * application starts while Redis is down and its calls work once Redis is up.
 */
public final class RedisLockProviderFactory extends SchemeProviderFactory {

  /** Creates the factory; {@link java.util.ServiceLoader} calls this. */
  public RedisLockProviderFactory() {
    super(RedisLockProviderFactory::provider, "redis", "rediss");
  }

  /** A provider with a Redisson client of its own for {@code url}. */
  static RedisLockProvider provider(ProviderUrl url) {
    RedisUrl parsed = RedisUrl.parse(url);
    RedissonClient client;
    try {
      client = Redisson.create(parsed.config());
    } catch (RuntimeException e) {
      // Redisson connects lazily, so this is its refusal of the configuration, not of a server.
      throw new LockConfigurationException(
          "Redisson refused the configuration of '"
              + url.redacted()
              + "': "
              + RedisFailures.reason(e),
          e);
    }
    return owning(client, parsed.options(), url.redacted());
  }

  /**
   * A provider that shuts {@code client} down when closed, or at once when the provider cannot be
   * created.
   */
  private static RedisLockProvider owning(
      RedissonClient client, RedisLockOptions options, String description) {
    try {
      return new RedisLockProvider(client, true, options, description);
    } catch (RuntimeException e) {
      try {
        client.shutdown(0, 2, TimeUnit.SECONDS);
      } catch (RuntimeException shutdown) {
        e.addSuppressed(shutdown);
      }
      throw e;
    }
  }
}
