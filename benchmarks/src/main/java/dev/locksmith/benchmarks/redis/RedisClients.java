package dev.locksmith.benchmarks.redis;

import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;
import org.redisson.config.Config;

/** Redisson clients for the benchmarks' own local {@code redis-server}, configured alike. */
public final class RedisClients {
  private RedisClients() {}

  /**
   * A client for {@code url} (such as {@code redis://127.0.0.1:41234}) with {@code connections}
   * pooled command connections, all opened up front, and scripts sent by SHA ({@code EVALSHA}) as
   * the Locksmith provider's own clients do.
   */
  public static RedissonClient create(String url, int connections) {
    Config config = new Config();
    config.setThreads(2);
    config.setNettyThreads(Math.max(2, Math.min(8, connections)));
    config.setUseScriptCache(true);
    config.setCodec(StringCodec.INSTANCE);
    config
        .useSingleServer()
        .setAddress(url)
        .setConnectionPoolSize(connections)
        .setConnectionMinimumIdleSize(connections)
        .setSubscriptionConnectionPoolSize(2)
        .setSubscriptionConnectionMinimumIdleSize(1)
        .setTimeout(5_000)
        .setRetryAttempts(0);
    return Redisson.create(config);
  }
}
