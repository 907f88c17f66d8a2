package dev.locksmith.micronaut.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.locksmith.core.LockBusyException;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micronaut.context.ApplicationContext;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * What the provider tests check of a job bean locked on {@code key = "#day"} with {@code onBusy =
 * FAIL} that returns its lease's fencing token.
 */
final class DayJobChecks {
  private DayJobChecks() {}

  /** A call of the job bean's locked method. */
  interface DayJob {
    long run(String day, Gate gate);
  }

  /** A check made while the first call holds the lock. */
  interface WhileHeld {
    void check() throws Exception;
  }

  /**
   * One call holds {@code mon} ({@code whileHeld} runs then) and a second is refused busy; a call
   * after the first ends gets a greater fencing token; the meters count two acquisitions of lock
   * {@code name} on the default provider.
   */
  static void holdsEachDayAlone(
      ApplicationContext context, String name, DayJob job, WhileHeld whileHeld) throws Exception {
    Gate gate = new Gate();
    CompletableFuture<Long> holder = CompletableFuture.supplyAsync(() -> job.run("mon", gate));
    gate.awaitEntered();
    whileHeld.check();
    assertThatThrownBy(() -> job.run("mon", Gate.opened())).isInstanceOf(LockBusyException.class);
    gate.open();
    long token = holder.get(20, TimeUnit.SECONDS);
    assertThat(job.run("mon", Gate.opened())).isGreaterThan(token);

    SimpleMeterRegistry meters = context.getBean(SimpleMeterRegistry.class);
    assertThat(
            meters
                .get("locksmith.acquire")
                .tags("name", name, "provider", "default", "outcome", "acquired")
                .timer()
                .count())
        .isEqualTo(2);
  }
}
