package dev.locksmith.virtualthreads;

import static org.assertj.core.api.Assertions.assertThat;

import dev.locksmith.core.LockProviders;
import dev.locksmith.core.spi.LeaseGrant;
import dev.locksmith.core.spi.LockProvider;
import dev.locksmith.core.spi.LockRequest;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A cancelled task on a virtual thread releases its lock in {@code finally} with its interrupt flag
 * set, and on a virtual thread blocking socket and file I/O answers the flag by closing the
 * channel. Every provider's calls but a wait work there as on any thread and keep the flag (the
 * SPI's rule), against each provider's real store, and the client goes on working.
 */
class InterruptedVirtualThreadTest {
  private static final Duration TTL = Duration.ofSeconds(30);

  @TempDir Path dir;

  @ParameterizedTest(name = "{0}")
  @EnumSource(Store.class)
  void callsOnAnInterruptedVirtualThreadWorkAndKeepTheFlag(Store store) throws Exception {
    try (Store.Running running = store.start(Files.createDirectories(dir));
        LockProvider provider = LockProviders.create(running.url())) {
      ExecutorService virtual = VirtualThreads.perTaskExecutor();
      try {
        List<Boolean> answers =
            virtual
                .submit(
                    () -> {
                      Thread.currentThread().interrupt();
                      LeaseGrant held =
                          provider.tryAcquire(LockRequest.of("cancelled", TTL)).orElseThrow();
                      LeaseGrant renewed = provider.renew(held, TTL).orElseThrow();
                      boolean released = provider.release(renewed);
                      return List.of(released, Thread.currentThread().isInterrupted());
                    })
                .get(60, TimeUnit.SECONDS);
        assertThat(answers).as("released, and the flag still set").containsExactly(true, true);
      } finally {
        virtual.shutdownNow();
      }
      LeaseGrant again = provider.tryAcquire(LockRequest.of("cancelled", TTL)).orElseThrow();
      assertThat(provider.release(again)).isTrue();
    }
  }
}
