package dev.locksmith.file;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.locksmith.core.Lease;
import dev.locksmith.core.LockEvent;
import dev.locksmith.core.LockListener;
import dev.locksmith.core.LockOptions;
import dev.locksmith.core.Locksmith;
import dev.locksmith.core.ProviderHealth;
import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A lock file that cannot be written (its permissions, a share's error on that one file) loses its
 * own lease at its deadline, and no other: the leases renewed in the same batch go on renewing, and
 * the provider is not reported down.
 */
class OneFailingLockFileTest {
  private static final Duration TTL = Duration.ofMillis(900);

  @TempDir Path dir;

  @Test
  void aLockFileThatCannotBeWrittenLosesOnlyItsOwnLease() {
    FileLockProvider provider = TestProviders.open(dir, "");
    provider.hooks(
        new TestHooks() {
          @Override
          public void beforeRenewWrite(String lockId) throws IOException {
            if (lockId.startsWith("unwritable")) {
              throw new AccessDeniedException(LockFileNames.of(dir, lockId).lock().toString());
            }
          }
        });
    Map<String, String> lost = new ConcurrentHashMap<>();
    LockListener losses =
        new LockListener() {
          @Override
          public void lost(LockEvent event, String reason) {
            lost.put(event.lockId(), reason);
          }
        };
    try (Locksmith locksmith =
        Locksmith.builder().defaultProvider(provider).listener(losses).build()) {
      List<Lease> healthy = new ArrayList<>();
      for (int i = 0; i < 5; i++) {
        healthy.add(locksmith.acquire(LockOptions.named("healthy").withKey("k" + i).withTtl(TTL)));
      }
      Lease unwritable = locksmith.acquire(LockOptions.named("unwritable").withTtl(TTL));

      await().atMost(Duration.ofSeconds(5)).until(() -> !unwritable.isValid());
      await()
          .during(TTL.multipliedBy(3))
          .atMost(TTL.multipliedBy(5))
          .until(() -> healthy.stream().allMatch(Lease::isValid));

      assertThat(lost.keySet()).as("leases lost").containsExactly(unwritable.lockId());
      assertThat(locksmith.health()).allMatch(ProviderHealth::up);
      healthy.forEach(Lease::close);
      unwritable.close();
    }
  }
}
