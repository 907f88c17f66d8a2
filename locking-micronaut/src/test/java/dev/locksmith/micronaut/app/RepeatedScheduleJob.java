package dev.locksmith.micronaut.app;

import dev.locksmith.annotation.DistributedLock;
import io.micronaut.context.annotation.Requires;
import io.micronaut.scheduling.annotation.Scheduled;
import jakarta.inject.Singleton;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Jobs scheduled in the two forms where reflection shows no {@code @Scheduled} on the method: two
 * schedules (the container {@code @Schedules}) and a schedule of the application's own annotation.
 * The scheduler never fires them during a test; {@link RepeatedScheduleTest} calls them directly.
 */
@Singleton
@Requires(env = "repeated-schedule")
class RepeatedScheduleJob {
  final AtomicInteger runs = new AtomicInteger();

  /** An hourly schedule, as an application's own annotation. */
  @Retention(RetentionPolicy.RUNTIME)
  @Target(ElementType.METHOD)
  @Scheduled(fixedDelay = "1h", initialDelay = "1h")
  @interface Hourly {}

  @Scheduled(fixedDelay = "1h", initialDelay = "1h")
  @Scheduled(cron = "0 0 3 1 1 *")
  @DistributedLock(name = "repeated-schedule")
  void twice() {
    runs.incrementAndGet();
  }

  @Hourly
  @DistributedLock(name = "own-schedule")
  void hourly() {
    runs.incrementAndGet();
  }
}
