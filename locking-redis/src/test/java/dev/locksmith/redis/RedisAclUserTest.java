package dev.locksmith.redis;

import static dev.locksmith.redis.RedisTests.lockId;
import static dev.locksmith.redis.RedisTests.request;
import static org.assertj.core.api.Assertions.assertThat;

import dev.locksmith.core.LockProviders;
import dev.locksmith.core.spi.LeaseGrant;
import dev.locksmith.core.spi.LockProvider;
import dev.locksmith.testkit.redis.RedisServerProcess;
import dev.locksmith.testkit.redis.TestRedis;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * {@code redis://USER@host}, an ACL user without a password: Redisson sends {@code AUTH} only with
 * a password, so the connections ran as the default user, the user given was ignored.
 */
class RedisAclUserTest {

  @Test
  void aUserWithoutPasswordIsTheUserTheLocksRunAs() {
    // The default user may only PING and INFO (the test kit's readiness check); the locks need
    // "locker".
    try (RedisServerProcess redis =
            TestRedis.startDedicated(
                "--user", "locker", "on", "nopass", "~*", "&*", "+@all", "--user", "default", "on",
                "nopass", "-@all", "+ping", "+info");
        LockProvider provider =
            LockProviders.create("redis://locker@127.0.0.1:" + redis.port() + "?prefix=acl")) {
      LeaseGrant lease =
          provider.tryAcquire(request(lockId(), Duration.ofSeconds(30))).orElseThrow();
      assertThat(provider.release(lease)).isTrue();
    }
  }
}
