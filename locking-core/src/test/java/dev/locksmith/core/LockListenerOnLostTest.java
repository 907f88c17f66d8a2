package dev.locksmith.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.locksmith.core.memory.MemoryLockProvider;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

class LockListenerOnLostTest {

  @Test
  void aLeaseThatRunsOutIsHandedToTheActionAndNothingElseIs() {
    List<String> lost = new CopyOnWriteArrayList<>();
    try (Locksmith locksmith =
        Locksmith.builder()
            .defaultProvider(MemoryLockProvider.isolated())
            .listener(
                LockListener.onLost((event, reason) -> lost.add(event.lockId() + ": " + reason)))
            .build()) {
      Lease kept = locksmith.acquire(LockOptions.named("kept"));
      kept.close();
      assertThat(lost).as("an acquire and a release are not lost leases").isEmpty();

      try (Lease unrenewed =
          locksmith.acquire(
              LockOptions.named("unrenewed").withTtl(Duration.ofMillis(200)).withRenew(false))) {
        await().atMost(Duration.ofSeconds(5)).until(() -> !lost.isEmpty());
        assertThat(lost).singleElement().asString().startsWith("unrenewed: ").contains("ttl");
        assertThat(unrenewed.name()).isEqualTo("unrenewed");
      }
      assertThat(lost).as("closing a lost lease loses nothing more").hasSize(1);
    }
  }

  @Test
  void saysWhatItIsAndRefusesANullAction() {
    assertThat(LockListener.onLost((event, reason) -> {}).toString())
        .startsWith("LockListener.onLost(");
    assertThatThrownBy(() -> LockListener.onLost(null))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("action");
  }
}
