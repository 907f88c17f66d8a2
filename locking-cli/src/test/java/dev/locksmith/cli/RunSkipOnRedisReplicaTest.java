package dev.locksmith.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.locksmith.core.spi.LeaseGrant;
import dev.locksmith.core.spi.LockRequest;
import dev.locksmith.core.spi.OwnerTokens;
import dev.locksmith.redis.RedisLockProvider;
import dev.locksmith.testkit.redis.RedisReplicaPair;
import dev.locksmith.testkit.redis.RedisServerProcess;
import java.io.ByteArrayOutputStream;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * {@code run --skip} on a Redis master with a replica that lags (it stopped following), configured
 * to read from replicas as Redisson's master/replica default does: the skip line names the holder,
 * read from the master, never a bare {@code skipped:}.
 */
class RunSkipOnRedisReplicaTest {
  @TempDir Path dir;

  @Test
  void skipNamesTheHolderThoughTheReplicaLags() throws Exception {
    try (RedisReplicaPair pair = RedisReplicaPair.start()) {
      RedisServerProcess master = pair.master();
      pair.detachReplica();
      Path yaml = dir.resolve("redisson.yaml");
      Files.writeString(
          yaml,
          "masterSlaveServersConfig:\n"
              + "  masterAddress: \"redis://127.0.0.1:"
              + master.port()
              + "\"\n"
              + "  slaveAddresses: [\"redis://127.0.0.1:"
              + pair.replica().port()
              + "\"]\n"
              + "  readMode: \"SLAVE\"\n");
      try (RedisLockProvider holder = RedisLockProvider.create(master.url())) {
        LeaseGrant held =
            holder
                .tryAcquire(
                    new LockRequest(
                        "nightly", OwnerTokens.newToken(), Duration.ofMinutes(1), "backup@host-a"))
                .orElseThrow();
        Path ran = dir.resolve("ran");
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        CommandLine line = Main.commandLine();
        line.setErr(new PrintWriter(err, true));
        int exit =
            line.execute(
                "run",
                "--url",
                "redis://" + yaml.toAbsolutePath(),
                "--key",
                "nightly",
                "--skip",
                "--",
                "touch",
                ran.toString());
        assertThat(exit).as("stderr: %s", err).isZero();
        assertThat(ran).doesNotExist();
        assertThat(err.toString())
            .contains("skipped: held by backup@host-a (fencing token " + held.fencingToken() + ",");
        assertThat(holder.release(held)).isTrue();
      }
    }
  }
}
