package dev.locksmith.spring.outage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.locksmith.annotation.DistributedLock;
import dev.locksmith.tcp.server.LockServer;
import dev.locksmith.testkit.LoopbackPorts;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.health.actuate.endpoint.HealthEndpoint;
import org.springframework.boot.health.contributor.Status;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Import;

/**
 * The TCP and file providers, like Redis ({@link RedisOutageBootTest}), let a Boot application
 * start with their backend missing: health DOWN, then UP once the backend is there.
 */
class BackendDownAtStartTest {
  @TempDir Path dir;

  @Test
  void startsWithTheLockServerDownAndTurnsUpWhenItStarts() throws Exception {
    int port = LoopbackPorts.free();
    try (ConfigurableApplicationContext context = start("tcp://127.0.0.1:" + port)) {
      HealthEndpoint health = context.getBean(HealthEndpoint.class);
      await("DOWN").atMost(Duration.ofSeconds(30)).until(() -> status(health), Status.DOWN::equals);
      try (LockServer server = LockServer.builder().port(port).build()) {
        server.start();
        await("UP").atMost(Duration.ofSeconds(30)).until(() -> status(health), Status.UP::equals);
        assertThat(context.getBean(Job.class).work()).isEqualTo("ran");
      }
    }
  }

  @Test
  void startsWithTheLockDirectoryMissingAndTurnsUpWhenItExists() throws Exception {
    Path locks = dir.resolve("locks");
    try (ConfigurableApplicationContext context = start(locks.toUri().toString())) {
      HealthEndpoint health = context.getBean(HealthEndpoint.class);
      await("DOWN").atMost(Duration.ofSeconds(30)).until(() -> status(health), Status.DOWN::equals);
      Files.createDirectories(locks);
      await("UP").atMost(Duration.ofSeconds(30)).until(() -> status(health), Status.UP::equals);
      assertThat(context.getBean(Job.class).work()).isEqualTo("ran");
    }
  }

  private static Status status(HealthEndpoint health) {
    return health.healthForPath("locksmith", "default").getStatus();
  }

  private static ConfigurableApplicationContext start(String url) {
    return new SpringApplicationBuilder(App.class)
        .web(WebApplicationType.NONE)
        .properties("locksmith.url=" + url, "spring.main.banner-mode=off")
        .run();
  }

  @SpringBootConfiguration
  @EnableAutoConfiguration
  @Import(Job.class)
  static class App {}

  /** A locked method. */
  public static class Job {
    /** Locked. */
    @DistributedLock(name = "down-at-start")
    public String work() {
      return "ran";
    }
  }
}
