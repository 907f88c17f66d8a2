package dev.locksmith.samples.springboot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.locksmith.core.Lease;
import dev.locksmith.core.LockOptions;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * The whole application on a random port, with the file lock provider in a fresh directory and an
 * in-memory H2 database: concurrent transfers over HTTP keep every balance exact, and the scheduled
 * report runs under its lock and skips while someone else holds it.
 */
@SpringBootTest(
    webEnvironment = WebEnvironment.RANDOM_PORT,
    properties = {
      "spring.datasource.url=jdbc:h2:mem:bank-smoke;DB_CLOSE_DELAY=-1",
      "bank.report.cron=* * * * * *",
      "bank.report.min-hold=300ms",
      "bank.transfer.wait-timeout=20s"
    })
class BankSmokeTest extends RunningBank {
  private static final List<String> ACCOUNTS = TransferLoad.ACCOUNTS;
  private static final long INITIAL_CENTS = TransferLoad.INITIAL_CENTS;

  @DynamicPropertySource
  static void lockDirectory(DynamicPropertyRegistry registry) {
    registry.add("locksmith.url", () -> "file://" + freshLockDirectory());
  }

  @Test
  void concurrentTransfersKeepEveryBalanceExact() throws Exception {
    sendTransfersAndCheckBalances();
  }

  @Test
  void reportRunsUnderItsLockAndSkipsWhileItIsHeld() throws Exception {
    await().atMost(Duration.ofSeconds(20)).until(() -> job.runs() > 0);
    BalanceReport report = job.latest().orElseThrow();
    assertThat(report.lockId()).isEqualTo("bank-report");
    assertThat(report.fencingToken()).isPositive();
    assertThat(report.totalCents()).isEqualTo(INITIAL_CENTS * ACCOUNTS.size());

    // Hold the job's lock as another owner would (another instance), and call the job: it skips.
    int runsWhileHeld;
    int busyBefore = events.busy("bank-report");
    try (Lease held = locksmith.acquire(LockOptions.named("bank-report"))) {
      runsWhileHeld = job.runs();
      // From another thread: the lock is reentrant for the thread that holds it.
      CompletableFuture.runAsync(job::report).get(20, TimeUnit.SECONDS);
      assertThat(job.runs()).isEqualTo(runsWhileHeld);
      assertThat(events.busy("bank-report")).isGreaterThan(busyBefore);
      assertThat(held.isValid()).isTrue();
    }

    // Released: the next tick makes a report again, under a newer lease.
    await().atMost(Duration.ofSeconds(20)).until(() -> job.runs() > runsWhileHeld);
    assertThat(job.latest().orElseThrow().fencingToken()).isGreaterThan(report.fencingToken());
  }

  private static Path freshLockDirectory() {
    try {
      Path target = Files.createDirectories(Path.of("target"));
      return Files.createTempDirectory(target, "smoke-locks-").toAbsolutePath();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @TestConfiguration
  static class Listening {
    @Bean
    LockEvents lockEvents() {
      return new LockEvents();
    }
  }
}
