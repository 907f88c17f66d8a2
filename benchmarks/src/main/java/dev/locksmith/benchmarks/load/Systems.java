package dev.locksmith.benchmarks.load;

import dev.locksmith.benchmarks.redis.RawRedisLock;
import dev.locksmith.benchmarks.redis.RedisClients;
import dev.locksmith.core.Lease;
import dev.locksmith.core.LockOptions;
import dev.locksmith.core.LockProviders;
import dev.locksmith.core.Locksmith;
import dev.locksmith.core.spi.LeaseGrant;
import dev.locksmith.core.spi.LockProvider;
import dev.locksmith.core.spi.LockRequest;
import dev.locksmith.redis.RedisLockOptions;
import dev.locksmith.redis.RedisLockProvider;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Lock;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;
import org.redisson.api.RLock;
import org.redisson.api.RedissonClient;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.integration.redis.util.RedisLockRegistry;

/** The lock systems the load harnesses drive, each over the benchmark's own local servers. */
public final class Systems {
  /** The lease length every system asks for. */
  public static final Duration TTL = Duration.ofSeconds(30);

  private Systems() {}

  /** The Locksmith TCP lock server through the {@code tcp://} provider (one connection each). */
  public static LockSystem tcp(int port) {
    String url = "tcp://127.0.0.1:" + port;
    return new LockSystem(
        "locksmith-tcp",
        "Locksmith TCP lock server (in-process) via the tcp:// provider, one connection per client",
        connections -> new ProviderClient(LockProviders.create(url), null));
  }

  /** Redis driven as a Redis lock is: {@code SET NX PX}, owner-checked delete, pub/sub wake-up. */
  public static LockSystem rawRedis(String url) {
    return rawRedis(
        url,
        "redis-raw",
        "raw Redis lock via Redisson: SET NX PX, owner-checked DEL+PUBLISH script, RTopic wake-up",
        RawRedisLock::new);
  }

  /**
   * The raw Redis lock with a fencing token: {@code SET NX PX} and an {@code INCR} of the lock's
   * counter in one script, then the same owner-checked delete. What a grant with a token costs
   * before any of Locksmith's own work.
   */
  public static LockSystem rawRedisFenced(String url) {
    return rawRedis(
        url,
        "redis-raw-fenced",
        "raw Redis lock plus a fencing token: SET NX PX + INCR in one script, owner-checked DEL",
        RawRedisLock::fenced);
  }

  private static LockSystem rawRedis(
      String url, String name, String description, Function<RedissonClient, RawRedisLock> lock) {
    return new LockSystem(
        name,
        description,
        connections -> {
          RedissonClient client = RedisClients.create(url, connections);
          RawRedisLock raw = lock.apply(client);
          return shuttingDown(
              client,
              (key, wait) -> {
                String token = raw.lock(key, TTL, wait);
                return token == null ? null : () -> raw.unlock(key, token);
              });
        });
  }

  /** The Locksmith Redis provider, over a Redisson client of its own. */
  public static LockSystem locksmithRedis(String url) {
    return new LockSystem(
        "locksmith-redis",
        "Locksmith redis provider (Lua scripts with fencing, pub/sub wake-up) via Redisson",
        connections -> {
          RedissonClient client = RedisClients.create(url, connections);
          return new ProviderClient(
              RedisLockProvider.create(client, new RedisLockOptions("load")), client);
        });
  }

  /**
   * The Locksmith Redis provider through the engine, as an annotated method or {@code
   * Locksmith.acquire} uses it: the lease is renewed while held, and closing it sends the release
   * without waiting for its reply (the next acquire of the same lock id carries it, so Redis
   * applies it first). What a caller of {@code redis://} sees.
   */
  public static LockSystem locksmithRedisEngine(String url) {
    return new LockSystem(
        "locksmith-redis-engine",
        "Locksmith engine over the redis provider: Locksmith.acquire, Lease.close (release off the"
            + " caller's path), renewal scheduled",
        connections -> {
          RedissonClient client = RedisClients.create(url, connections);
          Locksmith engine =
              Locksmith.builder()
                  .defaultProvider(RedisLockProvider.create(client, new RedisLockOptions("engine")))
                  .build();
          return new LockClient() {
            @Override
            public @Nullable Held acquire(String key, Duration wait) {
              LockOptions options =
                  LockOptions.named("load").withKey(key).withTtl(TTL).withWaitTimeout(wait);
              Lease lease = engine.acquire(options);
              return lease::close;
            }

            @Override
            public void close() {
              engine.close();
              client.shutdown();
            }
          };
        });
  }

  /** Redisson {@code RLock} with its watchdog (no lease time given). */
  public static LockSystem redissonRLock(String url) {
    return new LockSystem(
        "redisson-rlock",
        "Redisson RLock.tryLock(wait) / unlock(), watchdog renewal",
        connections -> {
          RedissonClient client = RedisClients.create(url, connections);
          return shuttingDown(
              client,
              (key, wait) -> {
                RLock lock = client.getLock("rlock:" + key);
                return lock.tryLock(wait.toMillis(), TimeUnit.MILLISECONDS) ? lock::unlock : null;
              });
        });
  }

  /** Spring Integration's {@code RedisLockRegistry} over Lettuce, in the given lock type. */
  public static LockSystem springIntegration(
      String host, int port, RedisLockRegistry.RedisLockType type) {
    String suffix = type == RedisLockRegistry.RedisLockType.PUB_SUB_LOCK ? "pubsub" : "spin";
    return new LockSystem(
        "spring-integration-" + suffix,
        "Spring Integration RedisLockRegistry (" + type + ") over Lettuce, one registry per client",
        connections -> {
          LettuceConnectionFactory factory =
              new LettuceConnectionFactory(new RedisStandaloneConfiguration(host, port));
          factory.afterPropertiesSet();
          factory.start();
          RedisLockRegistry registry = new RedisLockRegistry(factory, "si-" + suffix, TTL);
          registry.setRedisLockType(type);
          return new LockClient() {
            @Override
            public @Nullable Held acquire(String key, Duration wait) throws InterruptedException {
              Lock lock = registry.obtain(key);
              return lock.tryLock(wait.toMillis(), TimeUnit.MILLISECONDS) ? lock::unlock : null;
            }

            @Override
            public void close() {
              registry.destroy();
              factory.destroy();
            }
          };
        });
  }

  /**
   * A Locksmith provider driven through the SPI: {@code acquire(request, wait)}, {@code release}.
   */
  private record ProviderClient(LockProvider provider, @Nullable RedissonClient redisson)
      implements LockClient {
    @Override
    public @Nullable Held acquire(String key, Duration wait) throws InterruptedException {
      Optional<LeaseGrant> grant = provider.acquire(LockRequest.of(key, TTL), wait);
      if (grant.isEmpty()) {
        return null;
      }
      LeaseGrant lease = grant.get();
      return () -> {
        if (!provider.release(lease)) {
          throw new IllegalStateException("lease on " + key + " was lost before its release");
        }
      };
    }

    @Override
    public void close() {
      provider.close();
      if (redisson != null) {
        redisson.shutdown();
      }
    }
  }

  /**
   * How a client over Redisson takes a lock: the lock to release, or null when the wait ran out.
   */
  private interface Acquire {
    LockClient.@Nullable Held acquire(String key, Duration wait) throws InterruptedException;
  }

  /** A client that takes locks with {@code acquire} and shuts its Redisson client down on close. */
  private static LockClient shuttingDown(RedissonClient client, Acquire acquire) {
    return new LockClient() {
      @Override
      public @Nullable Held acquire(String key, Duration wait) throws InterruptedException {
        return acquire.acquire(key, wait);
      }

      @Override
      public void close() {
        client.shutdown();
      }
    };
  }
}
