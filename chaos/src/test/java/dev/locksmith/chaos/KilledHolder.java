package dev.locksmith.chaos;

import dev.locksmith.core.Lease;
import dev.locksmith.core.LockOptions;
import dev.locksmith.core.LockProviders;
import dev.locksmith.core.Locksmith;
import java.nio.file.Path;
import java.time.Duration;
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
