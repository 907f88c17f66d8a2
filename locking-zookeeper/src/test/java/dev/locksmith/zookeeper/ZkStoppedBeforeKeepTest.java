package dev.locksmith.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;

import dev.locksmith.core.Lease;
import dev.locksmith.core.LockOptions;
import dev.locksmith.core.Locksmith;
import dev.locksmith.core.spi.LockStatus;
import dev.locksmith.testkit.ChildJvm;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A holder stopped (SIGSTOP) between the ensemble's grant of its lock and the engine keeping the
 * lease ({@link ZkLockProvider#beforeKeep}), for longer than its session timeout but far less than
 * its ttl: the ensemble expires its session and deletes its node, and another process takes the
 * lock. When the holder runs again, the engine keeps the lease; the very first look at it must find
 * it lost, its fencing token must be lower than the taker's, and the holder's release and close
 * must leave the taker's lease valid and its node in place.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ZkStoppedBeforeKeepTest {
  private static final String ID = "stopped-before-keep";

  @Test
  void aHolderStoppedPastItsSessionBeforeItsLeaseIsKeptFindsItLostAtItsFirstLook(@TempDir Path dir)
      throws Exception {
    Path marker = dir.resolve("granted");
    Path go = dir.resolve("go");
    Path result = dir.resolve("result");
    try (StoppedHolderRun run =
            StoppedHolderRun.start(
                dir,
                ID,
                ChildJvm.builder(StoppedBeforeKeepHolder.class)
                    .systemProperty("org.slf4j.simpleLogger.showDateTime", "true")
                    .systemProperty("org.slf4j.simpleLogger.dateTimeFormat", "HH:mm:ss.SSS"),
                marker.toString(),
                go.toString(),
                result.toString());
        ZkLockProvider provider = ZkLockProvider.create(run.url());
        Locksmith locksmith = Locksmith.builder().defaultProvider(provider).build()) {
      ChildJvm holder = run.holder();
      // The ensemble has granted the lock; the holder waits in the hook for the go file.
      run.awaitMarker(marker);

      long pausedAt = System.nanoTime();
      holder.pause();
      try (Lease taken =
          locksmith.acquire(
              LockOptions.named(ID)
                  .withTtl(Duration.ofSeconds(30))
                  .withRenew(false)
                  .withWaitTimeout(Duration.ofSeconds(30)))) {
        // The ensemble expired the stopped holder's session: the lock is this process's now.
        long takenMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - pausedAt);
        holder.resume();
        // Only now may the holder leave the hook, so the lease is kept after the stop.
        Files.createFile(go);
        assertThat(holder.awaitExit(Duration.ofSeconds(30))).as("log %s", holder.log()).isZero();

        System.out.println(
            "taken "
                + takenMillis
                + " ms after the stop; stopped-before-keep holder: "
                + Files.readString(result).replace('\n', ' '));
        Properties seen = StoppedHolderRun.result(result);
        assertThat(seen.getProperty("goSeen")).as("log %s", holder.log()).isEqualTo("true");
        assertThat(Long.parseLong(seen.getProperty("stoppedMillis")))
            .as("the holder saw its stop, longer than half its session timeout")
            .isGreaterThan(1000);
        assertThat(seen.getProperty("valid"))
            .as("the holder's lease at its first look after it was kept; log %s", holder.log())
            .isEqualTo("false");
        assertThat(Long.parseLong(seen.getProperty("token"))).isLessThan(taken.fencingToken());

        // The holder has released its lost lease and closed: the taker's lease is untouched.
        assertThat(taken.isValid()).isTrue();
        LockStatus status = provider.status(ID);
        assertThat(status.currentHolder())
            .as("the holder of '%s' on the ensemble", ID)
            .hasValueSatisfying(
                holding -> assertThat(holding.fencingToken()).isEqualTo(taken.fencingToken()));
        assertThat(status.waiters()).as("nodes behind the taker's").isZero();
      }
    }
  }
}
