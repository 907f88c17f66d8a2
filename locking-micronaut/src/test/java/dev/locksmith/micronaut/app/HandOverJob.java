package dev.locksmith.micronaut.app;

import dev.locksmith.annotation.DistributedLock;
import io.micronaut.context.annotation.Requires;
import io.micronaut.context.annotation.Value;
import io.micronaut.scheduling.annotation.Scheduled;
import jakarta.inject.Singleton;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * A scheduled job that holds its lock ({@value #LOCK}, TTL 30 s) for {@code handover.work-millis}
 * ({@value #WORK_MILLIS} ms unless set) of work, started right after the context starts; the
 * shutdown tests close the context while it runs. It records when it entered and when its work
 * ended ({@link System#nanoTime()}), in fields and, when {@code handover.events} names a file, as
 * lines of that file for a parent process.
 */
@Singleton
@Requires(env = "handover")
class HandOverJob {
  static final String LOCK = "handover";
  static final long WORK_MILLIS = 1500;

  final CountDownLatch entered = new CountDownLatch(1);
  final CountDownLatch ended = new CountDownLatch(1);
  volatile long endedAt;
  volatile boolean interrupted;
  private final String events;
  private final long workMillis;

  HandOverJob(
      @Value("${handover.events:}") String events,
      @Value("${handover.work-millis:" + WORK_MILLIS + "}") long workMillis) {
    this.events = events;
    this.workMillis = workMillis;
  }

  @Scheduled(fixedDelay = "1h", initialDelay = "200ms")
  @DistributedLock(name = LOCK, ttl = "30s")
  void work() {
    record("entered " + System.nanoTime());
    entered.countDown();
    long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(workMillis);
    for (long left = until - System.nanoTime(); left > 0; left = until - System.nanoTime()) {
      try {
        TimeUnit.NANOSECONDS.sleep(left); // the job's work: time passing while the lock is held
      } catch (InterruptedException e) {
        interrupted = true;
      }
    }
    endedAt = System.nanoTime();
    record("ended " + endedAt + (interrupted ? " interrupted" : ""));
    ended.countDown();
  }

  private void record(String line) {
    if (events.isEmpty()) {
      return;
    }
    try {
      Files.writeString(
          Path.of(events),
          line + "\n",
          StandardCharsets.UTF_8,
          StandardOpenOption.CREATE,
          StandardOpenOption.APPEND);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
