package dev.locksmith.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.locksmith.core.memory.MemoryLockProvider;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/**
 * A failure between the provider's grant and the lease handed to the caller gives the grant back:
 * the lock is not left held by nobody until its ttl ends.
 */
class FailureAfterGrantTest {
  private static final LockOptions LOCK =
      LockOptions.named("after-grant").withTtl(Duration.ofHours(1));
  private final MemoryLockProvider store = MemoryLockProvider.isolated();

  @Test
  void aProviderFailingAfterItsGrantGetsTheGrantBack() {
    AtomicBoolean failing = new AtomicBoolean(true);
    ForwardingProvider provider =
        new ForwardingProvider(store) {
          @Override
          public Optional<Duration> pauseLimit() {
            if (failing.get()) {
              throw new IllegalStateException("settings unreadable");
            }
            return super.pauseLimit();
          }
        };
    try (Locksmith locksmith = Locksmith.builder().defaultProvider(provider).build()) {
      assertThatThrownBy(() -> locksmith.tryAcquire(LOCK)).hasMessage("settings unreadable");

      awaitFree();
      failing.set(false);
      try (Lease lease = locksmith.tryAcquire(LOCK).orElseThrow()) {
        assertThat(lease.isValid()).isTrue();
      }
    }
  }

  @Test
  void anErrorFromAListenerToldOfTheGrantGivesTheGrantBack() {
    LockListener failing =
        new LockListener() {
          @Override
          public void acquired(LockEvent event, Duration waited) {
            throw new AssertionError("listener broken");
          }
        };
    try (Locksmith locksmith =
        Locksmith.builder().defaultProvider(store).listener(failing).build()) {
      assertThatThrownBy(() -> locksmith.tryAcquire(LOCK)).hasMessage("listener broken");
      awaitFree();
      assertThatThrownBy(() -> locksmith.acquire(LOCK.withKeys("a", "b")))
          .as("a lease of several keys too")
          .hasMessage("listener broken");
      awaitFree();
    }
  }

  private void awaitFree() {
    await().atMost(Duration.ofSeconds(5)).until(() -> store.listHeld().orElseThrow().isEmpty());
  }
}
