package dev.locksmith.micronaut.app;

import dev.locksmith.annotation.DistributedLock;
import io.micronaut.context.annotation.Requires;
import io.micronaut.scheduling.annotation.Scheduled;
import jakarta.inject.Singleton;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A scheduled job with the default busy policy (AUTO, so SKIP on a scheduled method) that the
 * scheduler never fires during a test; {@link OutageBoundTest} calls it directly.
 */
@Singleton
@Requires(env = "outage")
class OutageJob {
  final AtomicInteger runs = new AtomicInteger();

  @Scheduled(fixedDelay = "1h", initialDelay = "1h")
  @DistributedLock(name = "outage-sweep", ttl = "10s")
  void sweep() {
    runs.incrementAndGet();
  }
}
