package dev.locksmith.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;

import dev.locksmith.core.Lease;
import dev.locksmith.core.LockOptions;
import dev.locksmith.core.Locksmith;
import dev.locksmith.testkit.ChildJvm;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Properties;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A holder stopped (SIGSTOP) for longer than its session timeout but far less than its ttl: the
 * ensemble expires its session and deletes its node, and another process takes the lock. When the
 * holder runs again, the very first look at its lease must find it lost, before its client has
 * heard of the expiry: until then the two would both believe they hold the lock.
 */
class ZkStoppedHolderTest {
  @Test
  void aHolderStoppedPastItsSessionFindsItsLeaseLostAtItsFirstLookAfter(@TempDir Path dir)
      throws Exception {
    Path marker = dir.resolve("token");
    Path result = dir.resolve("result");
    try (StoppedHolderRun run =
        StoppedHolderRun.start(
            dir,
            "stopped",
            ChildJvm.builder(StoppedHolder.class),
            marker.toString(),
            result.toString())) {
      ChildJvm holder = run.holder();
      run.awaitMarker(marker);
      long holderToken = Long.parseLong(Files.readString(marker).strip());

      holder.pause();
      long takerToken;
      try (Locksmith locksmith =
              Locksmith.builder().defaultProvider(ZkLockProvider.create(run.url())).build();
          Lease taken =
              locksmith.acquire(
                  LockOptions.named("stopped")
                      .withTtl(Duration.ofSeconds(30))
                      .withWaitTimeout(Duration.ofSeconds(30)))) {
        // The ensemble expired the stopped holder's session: the lock is this process's now.
        takerToken = taken.fencingToken();
        holder.resume();
        assertThat(holder.awaitExit(Duration.ofSeconds(30))).as("log %s", holder.log()).isZero();
        assertThat(taken.isValid()).isTrue();
      }

      System.out.println("stopped holder: " + Files.readString(result).replace('\n', ' '));
      Properties seen = StoppedHolderRun.result(result);
      assertThat(takerToken).isGreaterThan(holderToken);
      assertThat(Long.parseLong(seen.getProperty("stoppedMillis")))
          .as("the holder saw its stop, longer than half its session timeout")
          .isGreaterThan(1000);
      assertThat(seen.getProperty("valid"))
          .as("the stopped holder's lease at its first look; log %s", holder.log())
          .isEqualTo("false");
      assertThat(seen.getProperty("reason")).contains("this process stood still for");
    }
  }
}
