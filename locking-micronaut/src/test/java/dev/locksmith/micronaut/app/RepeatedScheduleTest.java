package dev.locksmith.micronaut.app;

import static org.assertj.core.api.Assertions.assertThat;

import dev.locksmith.core.Lease;
import dev.locksmith.core.LockOptions;
import dev.locksmith.core.Locksmith;
import io.micronaut.context.ApplicationContext;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A scheduled job's default busy policy (AUTO) is SKIP however the schedule is written: the other
 * instances' ticks return at once while one instance runs the job, instead of queueing to run it
 * again one after another.
 */
class RepeatedScheduleTest {

  @ParameterizedTest
  @ValueSource(strings = {"repeated-schedule", "own-schedule"})
  void aBusyTickIsSkipped(String lock) throws Exception {
    try (ApplicationContext context =
        ApplicationContext.run(Map.of("locksmith.url", "mem:mn-" + lock), "repeated-schedule")) {
      RepeatedScheduleJob job = context.getBean(RepeatedScheduleJob.class);
      Consumer<RepeatedScheduleJob> tick =
          lock.equals("own-schedule") ? RepeatedScheduleJob::hourly : RepeatedScheduleJob::twice;
      try (Lease held = context.getBean(Locksmith.class).acquire(LockOptions.named(lock))) {
        CompletableFuture.runAsync(() -> tick.accept(job)).get(10, TimeUnit.SECONDS);
        assertThat(job.runs).as("the busy tick skipped").hasValue(0);
      }
      tick.accept(job);
      assertThat(job.runs).as("a free tick runs").hasValue(1);
    }
  }
}
