package dev.locksmith.chaos;

import dev.locksmith.core.Lease;
import dev.locksmith.core.LockListener;
import dev.locksmith.core.LockOptions;
import dev.locksmith.core.LockProviders;
import dev.locksmith.core.Locksmith;
import dev.locksmith.core.fencing.FencedFile;
import dev.locksmith.core.fencing.StaleFencingTokenException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A worker JVM for scenario 2, a holder that will be frozen: takes the lock (renewed), reads the
 * ledger under the lease and reports {@code TOKEN DEADLINE_NANOS} in the marker file; the test then
 * SIGSTOPs it. After SIGCONT the test sends {@code go}: the holder writes its late value with its
 * old token, as a holder that does not check its lease would, waits up to 10 s for the lease to be
 * reported lost, and writes the result file ({@code key=value} lines).
 *
 * <p>Arguments: {@code URL LOCK_ID TTL LEDGER MARKER RESULT}.
 */
final class PausedHolder {
  private PausedHolder() {}

  /** Runs the holder; exits 0 once the result is written. */
  public static void main(String[] args) throws Exception {
    BlockingQueue<String> commands = WorkerIo.commands();
    FencedFile ledger = new FencedFile(Path.of(args[3]));
    CountDownLatch lost = new CountDownLatch(1);
    AtomicLong lostAt = new AtomicLong();
    AtomicReference<String> lostReason = new AtomicReference<>("");
    LockListener listener =
        LockListener.onLost(
            (event, reason) -> {
              lostAt.set(System.nanoTime());
              lostReason.set(reason);
              lost.countDown();
            });
    LockOptions options = LockOptions.named(args[1]).withTtl(Duration.parse(args[2]));
    try (Locksmith locksmith =
            Locksmith.builder()
                .defaultProvider(LockProviders.create(args[0]))
                .listener(listener)
                .build();
        Lease lease = locksmith.acquire(options)) {
      long read = WorkerIo.ledgerValue(ledger.read().value());
      long deadline = System.nanoTime() + lease.timeLeft().toNanos();
      WorkerIo.writeAtomically(Path.of(args[4]), lease.fencingToken() + " " + deadline);

      String command = commands.take(); // the SIGSTOP comes while waiting here
      long goAt = System.nanoTime();
      boolean validAtGo = lease.isValid();
      String outcome;
      try {
        ledger.write(lease.fencingToken(), Long.toString(read + 1));
        outcome = "accepted";
      } catch (StaleFencingTokenException e) {
        outcome = "refused";
      }
      boolean reported = lost.await(10, TimeUnit.SECONDS);
      WorkerIo.writeAtomically(
          Path.of(args[5]),
          String.join(
              "\n",
              "command=" + command,
              "token=" + lease.fencingToken(),
              "goAt=" + goAt,
              "validAtGo=" + validAtGo,
              "write=" + outcome,
              "lostReported=" + reported,
              "lostAt=" + lostAt.get(),
              "lostReason=" + lostReason.get().replace('\n', ' '),
              ""));
    }
    System.exit(0);
  }
}
