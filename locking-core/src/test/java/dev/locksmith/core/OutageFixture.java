package dev.locksmith.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.locksmith.core.memory.MemoryLockProvider;
import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.AfterEach;

/**
 * What the outage tests share: an {@link OutageProvider} in front of an isolated memory store,
 * every event recorded, a pool for callers that wait, and engines whose start-up probe has
 * answered.
 */
abstract class OutageFixture {
  /** The first line of {@link OutageProvider#FAILURE}, the only one health and logs may show. */
  static final String ONE_LINE_CAUSE =
      "LockProviderException: Unable to connect to 127.0.0.1:1: connection refused";

  final MemoryLockProvider store = MemoryLockProvider.isolated();
  final OutageProvider provider = new OutageProvider("outage:orders", store);
  final RecordingListener events = new RecordingListener();
  final ExecutorService pool = Executors.newCachedThreadPool();

  @AfterEach
  final void stopPool() {
    pool.shutdownNow();
  }

  /**
   * An engine on {@link #provider} whose start-up probe has answered, so only the test changes the
   * circuit.
   *
   * @param probeInterval how often the engine probes the provider while it is down
   */
  final Locksmith started(Duration probeInterval) {
    Locksmith locksmith =
        Locksmith.builder()
            .defaultProvider(provider)
            .listener(events)
            .providerProbeInterval(probeInterval)
            .build();
    await().atMost(Duration.ofSeconds(5)).until(() -> provider.statusDone.get() == 1);
    assertThat(locksmith.health()).singleElement().extracting(ProviderHealth::up).isEqualTo(true);
    return locksmith;
  }
}
