package dev.locksmith.tcp.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.locksmith.core.LockProviders;
import dev.locksmith.core.spi.LeaseGrant;
import dev.locksmith.core.spi.LockProvider;
import dev.locksmith.core.spi.LockRequest;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * Nothing is kept per lock id once its lock is free: distinct ids acquired and released once
 * through a real client leave the lock table empty and the live heap (server and client, both in
 * this JVM) where it was. 20,000 ids in the normal build; for more, run
 *
 * <pre>
 * ./mvnw -o -pl locking-tcp verify -Dtest=PerLockStateTest -Dlocksmith.test.ids=100000 \
 *     -Dsurefire.failIfNoSpecifiedTests=false
 * </pre>
 *
 * and read the figures in {@code
 * locking-tcp/target/surefire-reports/dev.locksmith.tcp.server.PerLockStateTest-output.txt}.
 */
class PerLockStateTest {
  private static final int IDS = Integer.getInteger("locksmith.test.ids", 20_000);

  /** A leak of even a bare map entry and key per id would exceed this. */
  private static final long ALLOWED_BYTES_PER_ID = 32;

  private static final long ALLOWED_NOISE_BYTES = 512 * 1024;

  @Test
  void distinctIdsAcquiredAndReleasedOnceLeaveNothingBehind() throws Exception {
    try (LockServer server = LockServer.builder().port(0).build()) {
      int port = server.start();
      try (LockProvider client = LockProviders.create("tcp://127.0.0.1:" + port)) {
        acquireAndReleaseOnce(client, "warm-up-", 5_000);
        long before = usedHeapAfterGc();
        long started = System.nanoTime();
        acquireAndReleaseOnce(client, "id-", IDS);
        Duration took = Duration.ofNanos(System.nanoTime() - started);
        long after = usedHeapAfterGc();
        int kept = server.lockCount();
        System.out.printf(
            "%,d distinct ids acquired and released once in %d ms: live heap %.2f MB before,"
                + " %.2f MB after (%+,d bytes, %+.1f bytes per id); %d locks in the table%n",
            IDS,
            took.toMillis(),
            before / 1e6,
            after / 1e6,
            after - before,
            (after - before) / (double) IDS,
            kept);
        assertThat(kept).as("locks the server still keeps").isZero();
        assertThat(after - before)
            .as("live heap growth after %,d ids", IDS)
            .isLessThan(ALLOWED_NOISE_BYTES + ALLOWED_BYTES_PER_ID * IDS);
      }
    }
  }

  private static void acquireAndReleaseOnce(LockProvider client, String prefix, int count) {
    Duration ttl = Duration.ofSeconds(30);
    for (int i = 0; i < count; i++) {
      LeaseGrant grant = client.tryAcquire(LockRequest.of(prefix + i, ttl)).orElseThrow();
      assertThat(client.release(grant)).isTrue();
    }
  }

  /** Used heap after full collections, once two in a row agree within 64 KB (at most 10). */
  private static long usedHeapAfterGc() {
    MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
    long previous = Long.MAX_VALUE;
    long used = 0;
    for (int i = 0; i < 10; i++) {
      System.gc();
      used = memory.getHeapMemoryUsage().getUsed();
      if (Math.abs(previous - used) < 64 * 1024) {
        break;
      }
      previous = used;
    }
    return used;
  }
}
