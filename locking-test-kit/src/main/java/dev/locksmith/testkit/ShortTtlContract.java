package dev.locksmith.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.locksmith.core.Lease;
import dev.locksmith.core.LockException;
import dev.locksmith.core.LockOptions;
import dev.locksmith.core.Locksmith;
import dev.locksmith.core.spi.LockProvider;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * TTLs far below a renewal tick on a free lock are granted or refused with a clear error, never
 * answered as busy.
 */
public interface ShortTtlContract extends ContractFixture {

  /**
   * {@code tryAcquire} with a 10, 20 or 50 ms TTL on a free lock grants or fails naming the ttl,
   * never answers busy.
   *
   * @throws Exception when a provider call fails
   */
  @Test
  default void shortTtlsOnAFreeLockGrantOrFailClearlyNeverBusy() throws Exception {
    Locksmith locksmith = engine(client());
    LockProvider other = client();
    for (long millis : new long[] {10, 20, 50}) {
      String id = lockId("short-ttl-" + millis);
      Duration ttl = Duration.ofMillis(millis);
      try {
        Optional<Lease> lease = locksmith.tryAcquire(LockOptions.named(id).withTtl(ttl));
        assertThat(lease).as("tryAcquire with a %d ms ttl on a free lock", millis).isPresent();
        lease.get().close();
      } catch (IllegalArgumentException | LockException e) {
        assertThat(e.getMessage()).as("the error for a %d ms ttl", millis).contains("ttl");
      }
      awaitFreeFor(other, id, Duration.ofSeconds(1));
    }
  }
}
