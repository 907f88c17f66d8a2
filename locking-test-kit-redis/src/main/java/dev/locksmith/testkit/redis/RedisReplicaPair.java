package dev.locksmith.testkit.redis;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import org.jspecify.annotations.Nullable;

/**
 * A master and one replica that follows it ({@code --replicaof}), child processes on free loopback
 * ports from one {@code redis-server} binary. {@link #start} returns once the replica is in sync:
 * the master lists it online and the replica reports its link to the master up. {@link
 * #detachReplica} makes it stop following, so that from then on it lags the master by every write.
 */
public final class RedisReplicaPair implements AutoCloseable {
  private static final Duration READY = Duration.ofSeconds(20);

  private final RedisServerProcess master;
  private final RedisServerProcess replica;

  private RedisReplicaPair(RedisServerProcess master, RedisServerProcess replica) {
    this.master = master;
    this.replica = replica;
  }

  /**
   * Starts the pair from the test kit's binary ({@link RedisBinaries#find}).
   *
   * @return the running pair, the replica in sync
   */
  public static RedisReplicaPair start() {
    return start(RedisBinaries.find());
  }

  /**
   * Starts the pair from {@code binary} and waits until the replica is in sync.
   *
   * @param binary the redis-server binary
   * @return the running pair, the replica in sync
   */
  public static RedisReplicaPair start(Path binary) {
    RedisServerProcess master = RedisServerProcess.start(binary);
    @Nullable RedisServerProcess replica = null;
    try {
      replica =
          RedisServerProcess.start(
              binary, "--replicaof", master.host(), Integer.toString(master.port()));
      RedisServerProcess following = replica;
      long offset = Probe.offset(master);
      Probe.await(
          following + " in sync with " + master,
          READY,
          () ->
              Probe.acknowledged(master, offset, 1)
                  && "up".equals(Probe.info(following, "replication").get("master_link_status")));
      return new RedisReplicaPair(master, replica);
    } catch (IOException | RuntimeException e) {
      if (replica != null) {
        replica.close();
      }
      master.close();
      throw new IllegalStateException("cannot start the replica pair: " + e.getMessage(), e);
    }
  }

  /**
   * The master.
   *
   * @return the master
   */
  public RedisServerProcess master() {
    return master;
  }

  /**
   * The replica.
   *
   * @return the replica
   */
  public RedisServerProcess replica() {
    return replica;
  }

  /**
   * Makes the replica stop following the master ({@code REPLICAOF NO ONE}): it keeps what it has,
   * and lags the master by every later write.
   *
   * @throws IOException when the replica does not answer
   */
  public void detachReplica() throws IOException {
    replica.call("REPLICAOF", "NO", "ONE");
  }

  /** Closes the replica, then the master. */
  @Override
  public void close() {
    try {
      replica.close();
    } finally {
      master.close();
    }
  }
}
