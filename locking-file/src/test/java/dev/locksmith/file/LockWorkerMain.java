package dev.locksmith.file;

import dev.locksmith.core.LockProviders;
import dev.locksmith.core.spi.LeaseGrant;
import dev.locksmith.core.spi.LockProvider;
import dev.locksmith.core.spi.LockRequest;
import dev.locksmith.core.spi.OwnerTokens;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;

/**
 * A child JVM for the multi-process tests. Reports through files, not standard output.
 *
 * <ul>
 *   <li>{@code hold URL LOCK TTL REPORT}: takes the lock, writes its fencing token to REPORT and
 *       blocks for ever without renewing (the test kills it);
 *   <li>{@code contend URL LOCK CYCLES LOG}: CYCLES times waits for the lock, enters a critical
 *       section guarded by a marker file created with create-new (finding it there means two
 *       holders), appends the fencing token to LOG, and releases.
 * </ul>
 */
public final class LockWorkerMain {
  private LockWorkerMain() {}

  /** Runs one mode; exits non-zero on any failure. */
  public static void main(String[] args) throws Exception {
    try (LockProvider provider = LockProviders.create(args[1])) {
      switch (args[0]) {
        case "hold" -> hold(provider, args[2], Duration.parse(args[3]), Path.of(args[4]));
        case "contend" -> contend(provider, args[2], Integer.parseInt(args[3]), Path.of(args[4]));
        default -> throw new IllegalArgumentException("unknown mode " + args[0]);
      }
    }
  }

  private static void hold(LockProvider provider, String lockId, Duration ttl, Path report)
      throws Exception {
    LeaseGrant lease = provider.acquire(request(lockId, ttl), Duration.ofSeconds(30)).orElseThrow();
    Path temp = report.resolveSibling(report.getFileName() + ".tmp");
    Files.writeString(temp, Long.toString(lease.fencingToken()), StandardCharsets.UTF_8);
    Files.move(temp, report);
    new CountDownLatch(1).await();
  }

  private static void contend(LockProvider provider, String lockId, int cycles, Path log)
      throws Exception {
    Path inside = log.resolveSibling("inside.marker");
    for (int i = 0; i < cycles; i++) {
      LeaseGrant lease =
          provider
              .acquire(request(lockId, Duration.ofSeconds(30)), Duration.ofSeconds(60))
              .orElseThrow(() -> new IllegalStateException("timed out waiting for " + lockId));
      try {
        Files.createFile(inside);
      } catch (IOException e) {
        throw new IllegalStateException("two holders of " + lockId + " at once", e);
      }
      Files.writeString(
          log,
          lease.fencingToken() + " " + ProcessHandle.current().pid() + "\n",
          StandardOpenOption.CREATE,
          StandardOpenOption.APPEND);
      Files.delete(inside);
      if (!provider.release(lease)) {
        throw new IllegalStateException("lost lease " + lease);
      }
    }
  }

  private static LockRequest request(String lockId, Duration ttl) {
    return new LockRequest(lockId, OwnerTokens.newToken(), ttl, OwnerTokens.describeCaller());
  }
}
