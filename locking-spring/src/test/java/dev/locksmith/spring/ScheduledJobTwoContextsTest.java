package dev.locksmith.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.locksmith.annotation.DistributedLock;
import dev.locksmith.annotation.OnBusy;
import dev.locksmith.core.LockEvent;
import dev.locksmith.core.LockListener;
import dev.locksmith.tcp.server.LockServer;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.scheduling.annotation.EnableScheduling;
import org.springframework.scheduling.annotation.Scheduled;

/** A {@code @Scheduled} job in two application contexts sharing one TCP lock server. */
class ScheduledJobTwoContextsTest {
  /** The tick (an even second) of every run of the job, from either context. */
  static final List<Long> RUNS = new CopyOnWriteArrayList<>();

  static final AtomicInteger BUSY = new AtomicInteger();

  /** The tick (an odd second) of every run of the job with a bare annotation. */
  static final List<Long> BARE_RUNS = new CopyOnWriteArrayList<>();

  @BeforeEach
  void clear() {
    RUNS.clear();
    BUSY.set(0);
    BARE_RUNS.clear();
  }

  @Test
  void runsOncePerTick() throws Exception {
    try (LockServer server = LockServer.builder().port(0).build()) {
      int port = server.start();
      try (ConfigurableApplicationContext first = start(port, "first");
          ConfigurableApplicationContext second = start(port, "second")) {
        await()
            .atMost(Duration.ofSeconds(30))
            .until(() -> RUNS.size() >= 3 && BUSY.get() >= 4 && BARE_RUNS.size() >= 3);
      }
    }
    assertThat(perTick(RUNS)).as("runs per tick").allSatisfy((t, runs) -> assertThat(runs).isOne());
    assertThat(perTick(BARE_RUNS))
        .as("runs per tick of the job with a bare @DistributedLock")
        .allSatisfy((tick, runs) -> assertThat(runs).isOne());
  }

  private static Map<Long, Long> perTick(List<Long> runs) {
    return runs.stream().collect(Collectors.groupingBy(Function.identity(), Collectors.counting()));
  }

  private static ConfigurableApplicationContext start(int port, String name) {
    return new SpringApplicationBuilder(JobApp.class)
        .web(WebApplicationType.NONE)
        .properties(
            "locksmith.url=tcp://127.0.0.1:" + port,
            "spring.application.name=" + name,
            "spring.main.banner-mode=off",
            // Two scheduler threads, so that the even-second job never queues behind the odd one.
            "spring.task.scheduling.pool.size=2")
        .run();
  }

  @SpringBootConfiguration
  @EnableAutoConfiguration
  @EnableScheduling
  static class JobApp {
    @Bean
    Job job() {
      return new Job();
    }

    @Bean
    LockListener busyCounter() {
      return new LockListener() {
        @Override
        public void busy(LockEvent event) {
          BUSY.incrementAndGet();
        }
      };
    }
  }

  /** Every even second; held at least 1.5 s so that the other context's firing finds it busy. */
  public static class Job {
    @Scheduled(cron = "*/2 * * * * *")
    @DistributedLock(name = "report", onBusy = OnBusy.SKIP, minHold = "1500ms")
    public void report() {
      RUNS.add(Instant.now().getEpochSecond() / 2);
    }

    /**
     * Every odd second, with nothing but a name: a scheduled method skips when busy by default. Its
     * work takes 1.5 s of the 2 s period, so the other context's firing of the same tick finds the
     * lock held even when it comes late (a cold first firing, a busy machine).
     */
    @Scheduled(cron = "1/2 * * * * *")
    @DistributedLock(name = "bare-report")
    public void bareReport() throws InterruptedException {
      BARE_RUNS.add(Instant.now().getEpochSecond() / 2);
      Thread.sleep(1500); // the job's own work
    }
  }
}
