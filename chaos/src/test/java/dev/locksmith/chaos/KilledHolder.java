package dev.locksmith.chaos;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.locksmith.core.Lease;
import dev.locksmith.core.LockOptions;
import dev.locksmith.core.LockProviders;
import dev.locksmith.core.Locksmith;
import dev.locksmith.testkit.ChildJvm;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;

/**
 * A worker JVM for scenario 3, a holder that will be killed: takes the lock (renewed), writes its
 * fencing token to the marker file and holds the lock until SIGKILL, or until {@code stop}, when it
 * releases the lock and exits (scenario 8).
 *
 * <p>Arguments: {@code URL LOCK_ID TTL MARKER}.
 */
final class KilledHolder {
  private KilledHolder() {}

  /**
   * A holder JVM that took its lock.
   *
   * @param jvm the worker, to kill or to {@code send("stop")}
   * @param token the fencing token of its lease
   */
  record Started(ChildJvm jvm, long token) implements AutoCloseable {
    /**
     * Judges the lease a waiter took {@code elapsed} nanoseconds after {@code event} (the kill, the
     * holder told to stop): it must have come within {@code bound} and carry a fencing token above
     * this holder's, which the messages call {@code holder}'s.
     *
     * @return the violations, each starting with the round
     */
    List<String> judgeTakeOver(
        int round, Lease lease, long elapsed, String event, Duration bound, String holder) {
      List<String> violations = new ArrayList<>();
      if (elapsed > bound.toNanos()) {
        violations.add(
            "round "
                + round
                + ": the waiter got the lock "
                + elapsed / 1_000_000
                + " ms after "
                + event
                + ", bound "
                + bound.toMillis()
                + " ms");
      }
      if (lease.fencingToken() <= token) {
        violations.add(
            "round "
                + round
                + ": token "
                + lease.fencingToken()
                + " not above "
                + holder
                + " "
                + token);
      }
      return violations;
    }

    @Override
    public void close() {
      jvm.close();
    }
  }

  /**
   * Starts a holder of {@code lockId} through {@code url} (log and marker in {@code dir}, named
   * after the round) and waits until it holds the lock.
   */
  static Started start(Path dir, int round, String url, String lockId, Duration ttl)
      throws IOException {
    Path marker = dir.resolve("held-" + round);
    ChildJvm holder =
        Workers.start(
            KilledHolder.class,
            dir.resolve("holder-" + round + ".log"),
            url,
            lockId,
            ttl.toString(),
            marker.toString());
    try {
      await().atMost(Duration.ofSeconds(60)).until(() -> Files.exists(marker) || !holder.isAlive());
      assertThat(holder.isAlive()).as("holder alive; log %s", holder.log()).isTrue();
      return new Started(holder, Long.parseLong(Files.readString(marker).strip()));
    } catch (IOException | RuntimeException | Error e) {
      holder.close();
      throw e;
    }
  }

  /** Starts {@code waiter} waiting up to 30 s for {@code lockId} (a 10 s lease) on a thread. */
  static Async.Call<Lease> waitFor(Client waiter, String lockId, int round) {
    return Async.start(
        "waiter-" + round,
        () ->
            waiter
                .locksmith()
                .acquire(
                    LockOptions.named(lockId)
                        .withTtl(Duration.ofSeconds(10))
                        .withWaitTimeout(Duration.ofSeconds(30))));
  }

  /** Runs the holder. */
  public static void main(String[] args) throws Exception {
    BlockingQueue<String> commands = WorkerIo.commands();
    LockOptions options = LockOptions.named(args[1]).withTtl(Duration.parse(args[2]));
    try (Locksmith locksmith =
            Locksmith.builder().defaultProvider(LockProviders.create(args[0])).build();
        Lease lease = locksmith.acquire(options)) {
      WorkerIo.writeAtomically(Path.of(args[3]), Long.toString(lease.fencingToken()));
      while (!"stop".equals(commands.take())) {
        // holds the lock, renewed by the engine, until killed
      }
    }
    System.exit(0);
  }
}
