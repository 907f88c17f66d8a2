package dev.locksmith.zookeeper;

import dev.locksmith.core.Durations;
import dev.locksmith.core.Lease;
import dev.locksmith.core.LockLostException;
import dev.locksmith.core.LockOptions;
import dev.locksmith.core.Locksmith;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * A holder JVM for {@link ZkStoppedHolderTest}: takes the lock with a long ttl and no renewal,
 * writes its fencing token to the marker file, then looks at its lease every millisecond. The first
 * time it finds that more than half a second went by between two looks (the test stopped it with
 * SIGSTOP), it writes what the lease said at once ({@code key=value} lines) and exits 0.
 *
 * <p>Arguments: {@code URL LOCK_ID TTL MARKER RESULT}.
 */
public final class StoppedHolder {
  private static final long STOP_NANOS = TimeUnit.MILLISECONDS.toNanos(500);
  private static final long GIVE_UP_NANOS = TimeUnit.SECONDS.toNanos(120);

  private StoppedHolder() {}

  /** Runs the holder. */
  public static void main(String[] args) throws Exception {
    LockOptions options =
        LockOptions.named(args[1]).withTtl(Durations.parse(args[2])).withRenew(false);
    try (Locksmith locksmith =
            Locksmith.builder().defaultProvider(ZkLockProvider.create(args[0])).build();
        Lease lease = locksmith.acquire(options)) {
      write(Path.of(args[3]), Long.toString(lease.fencingToken()));
      long start = System.nanoTime();
      long last = start;
      while (true) {
        LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
        long now = System.nanoTime();
        if (now - last > STOP_NANOS) {
          // The first look after the stop, before anything else this process does.
          boolean valid = lease.isValid();
          String reason = "";
          try {
            lease.checkValid();
          } catch (LockLostException e) {
            reason = e.getMessage().replace('\n', ' ');
          }
          write(
              Path.of(args[4]),
              "stoppedMillis="
                  + TimeUnit.NANOSECONDS.toMillis(now - last)
                  + "\nvalid="
                  + valid
                  + "\nreason="
                  + reason
                  + "\n");
          break;
        }
        if (now - start > GIVE_UP_NANOS) {
          write(Path.of(args[4]), "stoppedMillis=0\n");
          break;
        }
        last = now;
      }
    }
    System.exit(0);
  }

  /** Writes {@code text} to {@code file} at once (a rename), so no reader sees part of it. */
  static void write(Path file, String text) {
    try {
      Path temporary = file.resolveSibling(file.getFileName() + ".tmp");
      Files.writeString(temporary, text, StandardCharsets.UTF_8);
      Files.move(temporary, file, StandardCopyOption.ATOMIC_MOVE);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
