package dev.locksmith.spring.outage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.locksmith.annotation.DistributedLock;
import dev.locksmith.core.LockConfigurationException;
import dev.locksmith.testkit.redis.RedisServerProcess;
import dev.locksmith.testkit.redis.TestRedis;
import org.junit.jupiter.api.Test;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.core.env.Environment;

/**
 * A {@code RedissonClient} bean over a Redis whose {@code maxmemory-policy} evicts keys: the
 * provider refuses to grant until {@code locksmith.redisson.allow-eviction=true} accepts the risk.
 */
class EvictingRedisBootTest {

  @Test
  void evictingPolicyIsRefusedUnlessAllowed() {
    try (RedisServerProcess redis = TestRedis.startDedicated("--maxmemory-policy", "allkeys-lru")) {
      try (ConfigurableApplicationContext context = start(redis, false)) {
        assertThatThrownBy(() -> context.getBean(Job.class).work())
            .isInstanceOf(LockConfigurationException.class)
            .hasMessageContaining("allkeys-lru")
            .hasMessageContaining("allow-eviction");
      }
      try (ConfigurableApplicationContext context = start(redis, true)) {
        assertThat(context.getBean(Job.class).work()).isEqualTo("ran");
      }
    }
  }

  private static ConfigurableApplicationContext start(RedisServerProcess redis, boolean allow) {
    return new SpringApplicationBuilder(App.class)
        .web(WebApplicationType.NONE)
        .properties(
            "spring.main.banner-mode=off",
            "evicting.redis=" + redis.url(),
            "locksmith.redisson.allow-eviction=" + allow)
        .run();
  }

  @SpringBootConfiguration
  @EnableAutoConfiguration
  @Import(Job.class)
  static class App {
    @Bean(destroyMethod = "shutdown")
    RedissonClient redissonClient(Environment environment) {
      Config config = new Config();
      config.useSingleServer().setAddress(environment.getRequiredProperty("evicting.redis"));
      return Redisson.create(config);
    }
  }

  /** A locked method. */
  public static class Job {
    /** Locked. */
    @DistributedLock(name = "evicting")
    public String work() {
      return "ran";
    }
  }
}
