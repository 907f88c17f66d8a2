package dev.locksmith.chaos;

import dev.locksmith.core.Lease;
import dev.locksmith.core.LockListener;
import dev.locksmith.core.LockOptions;
import dev.locksmith.core.LockProviders;
import dev.locksmith.core.Locksmith;
import java.io.Writer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A worker JVM for scenario 7, a holder whose network path the test freezes: on {@code hold} it
 * takes the lock (renewed) and runs its critical section, observing its lease every half
 * millisecond, until the lease is lost; it then appends {@code lost ROUND LAST_VALID_NANOS
 * KNOWN_DEADLINE_NANOS LOST_EVENT_NANOS} to the result file and, on {@code next}, releases (its
 * path is thawed by then). {@code KNOWN_DEADLINE} is the last deadline the lease reported while
 * valid; the gap to {@code LOST_EVENT} is how late the engine noticed.
 *
 * <p>Arguments: {@code URL LOCK_ID TTL RESULT}.
 */
final class FrozenPathHolder {
  private FrozenPathHolder() {}

  /** Runs rounds until told {@code stop}. */
  public static void main(String[] args) throws Exception {
    BlockingQueue<String> commands = WorkerIo.commands();
    AtomicLong lostAt = new AtomicLong();
    CountDownLatch[] lost = {new CountDownLatch(1)};
    LockListener listener =
        LockListener.onLost(
            (event, reason) -> {
              lostAt.set(System.nanoTime());
              lost[0].countDown();
            });
    LockOptions options =
        LockOptions.named(args[1])
            .withTtl(Duration.parse(args[2]))
            .withWaitTimeout(Duration.ofSeconds(30));
    try (Locksmith locksmith =
            Locksmith.builder()
                .defaultProvider(LockProviders.create(args[0]))
                .listener(listener)
                .build();
        Writer out = WorkerIo.appender(Path.of(args[3]))) {
      int round = 0;
      for (String command = commands.take(); command.equals("hold"); command = commands.take()) {
        lost[0] = new CountDownLatch(1);
        Lease lease = locksmith.acquire(options);
        out.write("held " + round + " " + lease.fencingToken() + "\n");
        out.flush();
        long lastValid = 0;
        long knownDeadline = 0;
        while (true) {
          long beforeLeft = System.nanoTime();
          Duration left = lease.timeLeft();
          if (!lease.isValid()) {
            break;
          }
          // Read after isValid() said true: the holder was inside its lease at least until then.
          lastValid = System.nanoTime();
          knownDeadline = beforeLeft + left.toNanos();
          java.util.concurrent.locks.LockSupport.parkNanos(500_000);
        }
        boolean reported = lost[0].await(30, TimeUnit.SECONDS);
        out.write(
            "lost "
                + round
                + " "
                + lastValid
                + " "
                + knownDeadline
                + " "
                + (reported ? lostAt.get() : 0)
                + "\n");
        out.flush();
        if (!commands.take().equals("next")) {
          break;
        }
        lease.close();
        round++;
      }
    }
    System.exit(0);
  }
}
