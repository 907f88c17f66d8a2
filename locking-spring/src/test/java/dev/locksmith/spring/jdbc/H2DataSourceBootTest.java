package dev.locksmith.spring.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.locksmith.annotation.DistributedLock;
import dev.locksmith.annotation.OnBusy;
import dev.locksmith.core.Locksmith;
import dev.locksmith.jdbc.JdbcLockProvider;
import dev.locksmith.spring.HeldJob;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Bean;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * {@code locksmith.url=jdbc} with Boot's own pool on an in-memory H2 ({@code
 * spring.datasource.url}): the table is created in the application's database and a second caller
 * is refused while the first holds.
 */
@SpringBootTest(
    classes = H2DataSourceBootTest.App.class,
    properties = {
      "spring.datasource.url=jdbc:h2:mem:boot-h2;DB_CLOSE_DELAY=-1",
      "locksmith.url=jdbc",
      "locksmith.jdbc.table=boot_h2_locks"
    })
class H2DataSourceBootTest {
  @Autowired Locksmith locksmith;
  @Autowired Job job;
  @Autowired JdbcTemplate jdbc;

  @Test
  void secondCallerIsSkippedWhileTheFirstHoldsARowOfTheApplicationDatabase() throws Exception {
    assertThat(locksmith.providers().get("")).isInstanceOf(JdbcLockProvider.class);
    CountDownLatch entered = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    CompletableFuture<String> first =
        CompletableFuture.supplyAsync(() -> job.run(entered, release));
    assertThat(entered.await(10, TimeUnit.SECONDS)).isTrue();

    assertThat(
            jdbc.queryForObject(
                "SELECT owner FROM boot_h2_locks WHERE lock_id = 'h2-job'", String.class))
        .isNotBlank();
    assertThat(job.run(new CountDownLatch(1), new CountDownLatch(0))).isNull();

    release.countDown();
    assertThat(first.get(10, TimeUnit.SECONDS)).isEqualTo("h2-job");
    assertThat(locksmith.providers().get("").status("h2-job").currentHolder()).isEmpty();
    assertThat(job.run(new CountDownLatch(1), new CountDownLatch(0))).isEqualTo("h2-job");
  }

  @SpringBootConfiguration
  @EnableAutoConfiguration
  static class App {
    @Bean
    Job job() {
      return new Job();
    }
  }

  /** A job that holds its lock until told to end; skipped (null) while another holds it. */
  public static class Job {
    @DistributedLock(name = "h2-job", onBusy = OnBusy.SKIP)
    public @Nullable String run(CountDownLatch entered, CountDownLatch release) {
      return HeldJob.holdUntilReleased(entered, release);
    }
  }
}
