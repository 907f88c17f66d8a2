package dev.locksmith.redis;

import static dev.locksmith.redis.RedisTests.lockId;
import static dev.locksmith.redis.RedisTests.request;
import static org.assertj.core.api.Assertions.assertThat;

import dev.locksmith.core.spi.LeaseGrant;
import dev.locksmith.core.spi.LockRequest;
import dev.locksmith.core.spi.OwnerTokens;
import java.time.Duration;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

/**
 * What an acquire asks of the server. Every command a script runs costs the server far more than
 * the command alone, and the acquire script is on the path of every lock, so a grant runs {@code
 * HMGET}, {@code TIME}, {@code SET}, {@code HSET} and {@code PEXPIRE} once each and {@code GET}
 * twice (the fencing counter and the marks of abandoned acquires), and folding in a release still
 * in flight adds no command. A server of its own, so that its {@code INFO commandstats} counts this
 * class's commands only.
 */
class RedisScriptCommandsTest {
  private static final Duration LONG = Duration.ofMinutes(5);
  private static final String PREFIX = "commands";
  private static final Map<String, Long> GRANT =
      Map.of(
          "evalsha", 1L, "hmget", 1L, "time", 1L, "get", 2L, "set", 1L, "hset", 1L, "pexpire", 1L);

  @RegisterExtension
  static final DedicatedRedis dedicated =
      new DedicatedRedis("prefix=" + PREFIX, "prefix=" + PREFIX);

  @Test
  void aGrantReadsTheLockOnceTakesTheNextTokenAndWritesTheLockOnce() throws Exception {
    RedisLockProvider provider = dedicated.first();
    provider.tryAcquire(request(lockId(), LONG)).orElseThrow(); // loads the script

    Map<String, Long> before = scriptCommands();
    provider.tryAcquire(request(lockId(), LONG)).orElseThrow();
    assertThat(since(before)).isEqualTo(GRANT);
  }

  @Test
  void anAcquireFoldingInAReleaseInFlightRunsTheSameCommandsAsAGrant() throws Exception {
    Config config = new Config();
    config.useSingleServer().setAddress(dedicated.server().url());
    RedissonClient client = Redisson.create(config);
    try {
      LockCommands commands =
          new LockCommands(
              client, new FirstContact(), "commands-test", new RedisLockOptions(PREFIX));
      String id = lockId();
      LockKeys keys = LockKeys.of(PREFIX, id);
      LockRequest first = request(id, LONG);
      long sentAt = System.nanoTime();
      LeaseGrant held = commands.acquire(first, keys).grant(first, sentAt);
      String releaseId = OwnerTokens.newToken();
      PendingReleases.Pending inFlight = new PendingReleases.Pending(held, releaseId, null);

      Map<String, Long> before = scriptCommands();
      LockCommands.Attempt attempt = commands.acquire(request(id, LONG), keys, inFlight);
      assertThat(since(before)).isEqualTo(GRANT);

      assertThat(attempt.granted()).isTrue();
      assertThat(attempt.folded()).as("the release in flight, done by the acquire").isTrue();
      assertThat(attempt.value()).isGreaterThan(held.fencingToken());
      assertThat(dedicated.server().call("HGET", keys.lock(), "released"))
          .as("the release's record")
          .isEqualTo(held.ownerToken() + "/" + releaseId);
      assertThat(commands.release(held, keys, releaseId))
          .as("the release in flight, when it arrives, finds its record")
          .isTrue();
    } finally {
      client.shutdown();
    }
  }

  /** The calls so far of each command a script of the provider may run. */
  private static Map<String, Long> scriptCommands() throws Exception {
    Object stats = dedicated.server().call("INFO", "commandstats");
    Map<String, Long> calls = new TreeMap<>();
    for (String command :
        new String[] {
          "eval", "evalsha", "hmget", "hget", "time", "get", "set", "incr", "hset", "hdel",
          "pexpire", "pttl", "publish", "exists"
        }) {
      calls.put(command, RedisTests.calls(stats, command));
    }
    return calls;
  }

  /** The commands called since {@code before}, with how often; those not called left out. */
  private static Map<String, Long> since(Map<String, Long> before) throws Exception {
    Map<String, Long> delta = new TreeMap<>();
    scriptCommands()
        .forEach(
            (command, calls) -> {
              long added = calls - before.getOrDefault(command, 0L);
              if (added != 0) {
                delta.put(command, added);
              }
            });
    return delta;
  }
}
