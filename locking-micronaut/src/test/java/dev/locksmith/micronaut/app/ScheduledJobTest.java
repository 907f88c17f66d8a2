package dev.locksmith.micronaut.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.micronaut.context.ApplicationContext;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Two application contexts sharing one lock directory run a scheduled job once per tick. */
class ScheduledJobTest {

  @Test
  void aScheduledJobRunsOncePerTickAcrossTwoApplications(@TempDir Path locks) {
    Map<String, Object> properties = Map.of("locksmith.url", locks.toUri().toString());
    try (ApplicationContext first = ApplicationContext.run(properties, "ticks");
        ApplicationContext second = ApplicationContext.run(properties, "ticks")) {
      TickJob one = first.getBean(TickJob.class);
      TickJob two = second.getBean(TickJob.class);
      TickJob.Skips oneSkipped = first.getBean(TickJob.Skips.class);
      TickJob.Skips twoSkipped = second.getBean(TickJob.Skips.class);
      assertThat(one).isNotSameAs(two);

      await()
          .atMost(Duration.ofSeconds(30))
          .until(
              () ->
                  one.runs.size() + two.runs.size() >= 4
                      && oneSkipped.count.get() + twoSkipped.count.get() >= 3);

      first.stop();
      second.stop();
      List<Long> runs = new ArrayList<>(one.runs);
      runs.addAll(two.runs);
      Map<Long, Integer> perTick = new TreeMap<>();
      for (long at : runs) {
        perTick.merge(Math.round(at / 2000.0), 1, Integer::sum);
      }
      assertThat(perTick).hasSizeGreaterThanOrEqualTo(4);
      assertThat(perTick.values()).as("runs per tick: %s", perTick).containsOnly(1);
      // Both instances fired: every tick the one that lost the race skipped.
      assertThat(oneSkipped.count.get() + twoSkipped.count.get()).isGreaterThanOrEqualTo(3);
    }
  }
}
