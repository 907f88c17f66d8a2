package dev.locksmith.zookeeper;

import dev.locksmith.core.Durations;
import dev.locksmith.core.Lease;
import dev.locksmith.core.LockLostException;
import dev.locksmith.core.LockOptions;
import dev.locksmith.core.Locksmith;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalTime;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.locks.LockSupport;

/**
 * A holder JVM for {@link ZkStoppedBeforeKeepTest}: takes the lock with a long ttl and no renewal
 * through a provider whose {@link ZkLockProvider#beforeKeep} hook, once the ensemble has granted
 * the lock, writes the marker file and then looks for the go file every millisecond, for at most 60
 * s. The test stops this process (SIGSTOP) after the marker, resumes it, and only then writes the
 * go file, so the lease is kept after the stop. The first thing done with the lease is to look at
 * it; what it said is written at once ({@code key=value} lines), then the lease and the engine are
 * closed and the process exits 0.
 *
 * <p>Arguments: {@code URL LOCK_ID TTL MARKER GO RESULT}.
 */
public final class StoppedBeforeKeepHolder {
  private static final long GIVE_UP_NANOS = TimeUnit.SECONDS.toNanos(60);

  private StoppedBeforeKeepHolder() {}

  /** Runs the holder. */
  public static void main(String[] args) throws Exception {
    Path marker = Path.of(args[3]);
    Path go = Path.of(args[4]);
    // The longest gap between two looks for the go file, whether it was seen, when the hook ended.
    AtomicLongArray hook = new AtomicLongArray(3);
    ZkLockProvider provider = ZkLockProvider.create(args[0]);
    provider.beforeKeep(
        lockId -> {
          StoppedHolder.write(marker, lockId);
          long start = System.nanoTime();
          long last = start;
          long longest = 0;
          boolean seen;
          while (!(seen = Files.exists(go)) && last - start < GIVE_UP_NANOS) {
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
            long now = System.nanoTime();
            longest = Math.max(longest, now - last);
            last = now;
          }
          hook.set(0, longest);
          hook.set(1, seen ? 1 : 0);
          hook.set(2, System.nanoTime());
        });
    LockOptions options =
        LockOptions.named(args[1]).withTtl(Durations.parse(args[2])).withRenew(false);
    try (Locksmith locksmith = Locksmith.builder().defaultProvider(provider).build();
        Lease lease = locksmith.acquire(options)) {
      // The first look after the lease was kept, before anything else this process does.
      boolean valid = lease.isValid();
      long lookedAt = System.nanoTime();
      // Printed after the look, so that nothing slows the way from the go file to it.
      System.out.println(
          LocalTime.now()
              + " first look, "
              + TimeUnit.NANOSECONDS.toMicros(lookedAt - hook.get(2))
              + " us after the go file was seen: valid="
              + valid);
      String reason = "";
      try {
        lease.checkValid();
      } catch (LockLostException e) {
        reason = e.getMessage().replace('\n', ' ');
      }
      StoppedHolder.write(
          Path.of(args[5]),
          "token="
              + lease.fencingToken()
              + "\ngoSeen="
              + (hook.get(1) == 1)
              + "\nstoppedMillis="
              + TimeUnit.NANOSECONDS.toMillis(hook.get(0))
              + "\nkeptMicros="
              + TimeUnit.NANOSECONDS.toMicros(lookedAt - hook.get(2))
              + "\nvalid="
              + valid
              + "\nreason="
              + reason
              + "\n");
    }
    System.exit(0);
  }
}
