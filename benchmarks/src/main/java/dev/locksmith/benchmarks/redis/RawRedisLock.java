package dev.locksmith.benchmarks.redis;

import dev.locksmith.core.spi.OwnerTokens;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.redisson.api.RScript;
import org.redisson.api.RTopic;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;

/**
 * Redis driven the way a Redis lock is, with nothing of Locksmith in it: {@code SET key token NX PX
 * ttl} to take the lock, a Lua script that deletes the key only when it still holds the caller's
 * token and then {@code PUBLISH}es on the lock's channel, and waiters that subscribe to that
 * channel and retry on every message (or after {@value #RETRY_MILLIS} ms, in case a message was
 * lost). Each channel is subscribed once per instance and kept for the instance's life: the
 * cheapest form of the pattern. A message wakes one waiter of an instance (others retry on the
 * timer), so give each waiting client an instance of its own. Thread-safe.
 *
 * <p>{@link #fenced} is the same lock with one feature of Locksmith's added, a fencing token: the
 * {@code SET NX PX} and an {@code INCR} of a per-lock counter run as one script, as they must for
 * the token to belong to the grant. It tells how much of Locksmith's cost against the plain lock is
 * the token's, a script and a second key per grant, and how much is its own.
 */
public final class RawRedisLock {
  static final long RETRY_MILLIS = 100;

  static final String RELEASE =
      """
      if redis.call('GET', KEYS[1]) == ARGV[1] then
        redis.call('DEL', KEYS[1])
        redis.call('PUBLISH', KEYS[2], ARGV[1])
        return 1
      end
      return 0
      """;

  static final String FENCED_ACQUIRE =
      """
      if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then
        return redis.call('INCR', KEYS[2])
      end
      return 0
      """;

  private final RedissonClient client;
  private final RScript script;
  private final boolean fenced;
  private final ConcurrentHashMap<String, Semaphore> wakeUps = new ConcurrentHashMap<>();

  /** Locks over {@code client}, which the caller closes. */
  public RawRedisLock(RedissonClient client) {
    this(client, false);
  }

  private RawRedisLock(RedissonClient client, boolean fenced) {
    this.client = client;
    this.script = client.getScript(StringCodec.INSTANCE);
    this.fenced = fenced;
  }

  /**
   * Locks over {@code client} whose grants also take a fencing token: {@code SET NX PX} and {@code
   * INCR} of the lock's counter in one script.
   */
  public static RawRedisLock fenced(RedissonClient client) {
    return new RawRedisLock(client, true);
  }

  /**
   * Takes {@code key} if free: one {@code SET NX PX} (with the counter's {@code INCR} in one script
   * when fenced). Returns the owner token, or null.
   */
  public @Nullable String tryLock(String key, Duration ttl) {
    String token = OwnerTokens.newToken();
    if (fenced) {
      Long fence =
          script.eval(
              key,
              RScript.Mode.READ_WRITE,
              FENCED_ACQUIRE,
              RScript.ReturnType.LONG,
              List.<Object>of(key, key + ":fence"),
              token,
              Long.toString(ttl.toMillis()));
      return fence != null && fence > 0 ? token : null;
    }
    boolean set = client.<String>getBucket(key, StringCodec.INSTANCE).setIfAbsent(token, ttl);
    return set ? token : null;
  }

  /**
   * Takes {@code key}, waiting up to {@code timeout}: subscribe to the key's channel, then retry
   * after every release message.
   *
   * @return the owner token, or null when the timeout ran out
   */
  public @Nullable String lock(String key, Duration ttl, Duration timeout)
      throws InterruptedException {
    String token = tryLock(key, ttl);
    if (token != null) {
      return token;
    }
    long deadline = System.nanoTime() + timeout.toNanos();
    Semaphore wakeUp = subscribe(key);
    while (true) {
      token = tryLock(key, ttl);
      if (token != null) {
        return token;
      }
      long left = deadline - System.nanoTime();
      if (left <= 0) {
        return null;
      }
      long wait = Math.min(left, TimeUnit.MILLISECONDS.toNanos(RETRY_MILLIS));
      if (wakeUp.tryAcquire(wait, TimeUnit.NANOSECONDS)) {
        wakeUp.drainPermits();
      }
    }
  }

  /** The owner-checked delete that also publishes; whether {@code token} still held the lock. */
  public boolean unlock(String key, String token) {
    Long deleted =
        script.eval(
            key,
            RScript.Mode.READ_WRITE,
            RELEASE,
            RScript.ReturnType.LONG,
            List.<Object>of(key, channel(key)),
            token);
    return deleted != null && deleted == 1L;
  }

  private Semaphore subscribe(String key) {
    return wakeUps.computeIfAbsent(
        key,
        k -> {
          Semaphore semaphore = new Semaphore(0);
          RTopic topic = client.getTopic(channel(k), StringCodec.INSTANCE);
          // One waiter of this instance wakes per message; the harness gives each contender an
          // instance of its own, so that is the one waiter there is.
          topic.addListener(String.class, (channel, message) -> semaphore.release());
          return semaphore;
        });
  }

  static String channel(String key) {
    return key + ":released";
  }
}
