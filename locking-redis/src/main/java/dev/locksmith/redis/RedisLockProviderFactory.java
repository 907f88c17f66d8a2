package dev.locksmith.redis;

import dev.locksmith.core.LockProviderException;
import dev.locksmith.core.spi.LockProvider;
import dev.locksmith.core.spi.LockProviderFactory;
import dev.locksmith.core.spi.ProviderUrl;
import java.util.Set;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;

/**
 * Creates {@link RedisLockProvider}s for {@code redis://} and {@code rediss://} (TLS) URLs, each
 * with a Redisson client of its own that the provider shuts down when closed.
 */
public final class RedisLockProviderFactory implements LockProviderFactory {

  /** Creates the factory; {@link java.util.ServiceLoader} calls this. */
  public RedisLockProviderFactory() {}

  @Override
  public Set<String> schemes() {
    return Set.of("redis", "rediss");
  }

  @Override
  public LockProvider create(ProviderUrl url) {
    RedisUrl parsed = RedisUrl.parse(url);
    RedissonClient client;
    try {
      client = Redisson.create(parsed.config());
    } catch (RuntimeException e) {
      throw new LockProviderException(
          "Cannot connect to Redis at '" + url.redacted() + "': " + rootMessage(e), e);
    }
    return RedisLockProvider.owning(client, parsed.options(), url.redacted());
  }

  private static String rootMessage(Throwable e) {
    StringBuilder message = new StringBuilder(String.valueOf(e.getMessage()));
    Throwable cause = e.getCause();
    while (cause != null && cause != cause.getCause()) {
      if (cause.getMessage() != null && !message.toString().contains(cause.getMessage())) {
        message.append(": ").append(cause.getMessage());
      }
      cause = cause.getCause();
    }
    return message.toString();
  }
}
