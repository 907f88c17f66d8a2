package dev.locksmith.tcp;

import dev.locksmith.core.LockProviders;
import dev.locksmith.core.spi.LeaseGrant;
import dev.locksmith.core.spi.LockProvider;
import dev.locksmith.core.spi.LockRequest;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;

/**
 * A child JVM that takes a lock with a long TTL, writes its fencing token to a marker file and
 * holds the lock until it is killed. Arguments: provider URL, lock id, marker file.
 */
public final class HolderMain {
  private HolderMain() {}

  /** Runs the holder. */
  public static void main(String[] args) throws Exception {
    LockProvider provider = LockProviders.create(args[0]);
    LeaseGrant lease =
        provider
            .acquire(LockRequest.of(args[1], Duration.ofMinutes(5)), Duration.ofSeconds(30))
            .orElseThrow();
    Path marker = Path.of(args[2]);
    Path temp = marker.resolveSibling(marker.getFileName() + ".tmp");
    Files.writeString(temp, Long.toString(lease.fencingToken()));
    Files.move(temp, marker);
    new CountDownLatch(1).await();
  }
}
