package dev.locksmith.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.locksmith.annotation.DistributedLock;
import dev.locksmith.core.Lease;
import dev.locksmith.core.Locks;
import dev.locksmith.core.Locksmith;
import dev.locksmith.core.spi.LockProvider;
import dev.locksmith.core.spi.LockStatus;
import dev.locksmith.testkit.redis.TestRedis;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Bean;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * The application's {@code RedissonClient} (a real redis-server from the test kit) as the default
 * provider, and a named provider on a temporary directory.
 */
@SpringBootTest(classes = FileAndRedisBootTest.App.class)
class FileAndRedisBootTest {
  @Autowired Holder holder;
  @Autowired Locksmith locksmith;

  @DynamicPropertySource
  static void directory(DynamicPropertyRegistry registry) {
    try {
      Path dir = Files.createTempDirectory("locksmith-spring-test");
      registry.add("locksmith.providers.files.url", () -> dir.toUri().toString());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Test
  void redissonClientBeanIsTheDefaultProvider() {
    LockProvider provider = locksmith.providers().get("");
    assertThat(provider.description()).contains("application RedissonClient");
    assertHeldWhileRunning(provider, holder.onRedis());
  }

  @Test
  void namedProviderOnADirectory() {
    LockProvider provider = locksmith.providers().get("files");
    assertThat(provider.description()).contains("locksmith-spring-test");
    assertHeldWhileRunning(provider, holder.onFiles());
  }

  private static void assertHeldWhileRunning(LockProvider provider, Seen seen) {
    assertThat(seen.status().currentHolder())
        .hasValueSatisfying(h -> assertThat(h.fencingToken()).isEqualTo(seen.token()));
    assertThat(provider.status(seen.lockId()).currentHolder()).isEmpty();
  }

  /** What the locked method saw. */
  record Seen(String lockId, long token, LockStatus status) {}

  @SpringBootConfiguration
  @EnableAutoConfiguration
  static class App {
    @Bean(destroyMethod = "shutdown")
    RedissonClient redissonClient() {
      Config config = new Config();
      config.useSingleServer().setAddress(TestRedis.sharedUrl());
      return Redisson.create(config);
    }

    @Bean
    Holder holder(Locksmith locksmith) {
      return new Holder(locksmith);
    }
  }

  /** Reports, from inside the lock, what the provider says about it. */
  public static class Holder {
    private final Locksmith locksmith;

    Holder(Locksmith locksmith) {
      this.locksmith = locksmith;
    }

    @DistributedLock(name = "redis-job", key = "'a'")
    public Seen onRedis() {
      return seen("");
    }

    @DistributedLock(name = "file-job", key = "'b'", provider = "files")
    public Seen onFiles() {
      return seen("files");
    }

    private Seen seen(String provider) {
      Lease lease = Locks.current();
      return new Seen(
          lease.lockId(),
          lease.fencingToken(),
          locksmith.providers().get(provider).status(lease.lockId()));
    }
  }
}
