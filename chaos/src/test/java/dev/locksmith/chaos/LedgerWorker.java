package dev.locksmith.chaos;

import dev.locksmith.core.Lease;
import dev.locksmith.core.LockEvent;
import dev.locksmith.core.LockException;
import dev.locksmith.core.LockListener;
import dev.locksmith.core.LockOptions;
import dev.locksmith.core.LockProviders;
import dev.locksmith.core.Locksmith;
import dev.locksmith.core.ProviderHealth;
import dev.locksmith.core.fencing.FencedFile;
import dev.locksmith.core.fencing.StaleFencingTokenException;
import dev.locksmith.testkit.ChildJvm;
import java.io.IOException;
import java.io.Writer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A worker JVM for scenarios 1 and 4: N threads each take the lock again and again through one
 * {@link Locksmith} and, under the lease, read the fenced ledger and write its value plus one with
 * the lease's fencing token. Each thread appends a {@link Section} per accepted write to {@code
 * sections-PID-THREAD}; errors, lost leases, refused writes and provider outages go to {@code
 * errors-PID}, one line each: {@code NANOS KIND MESSAGE}, the kind one of {@code error}, {@code
 * listener-error}, {@code lost}, {@code refused}, {@code outage}. An outage is the engine's circuit
 * for the provider seen open (or opened and closed again) after a section or an error: a {@code
 * WAIT} rides through an outage without an error, so this is how the worker tells it met one.
 *
 * <p>Arguments: {@code URL LOCK_ID THREADS ITERATIONS LEDGER OUT_DIR TTL WAIT_TIMEOUT TOLERANT}, as
 * {@link Job#start} passes them. {@code ITERATIONS} per thread, or {@code 0} to run until {@code
 * stop} arrives on standard input. A strict worker ({@code TOLERANT=false}) stops a thread at its
 * first error and exits 1; a tolerant one records errors, backs off 50 ms and goes on (servers
 * restarting under it).
 */
final class LedgerWorker {
  private static final Logger LOG = LoggerFactory.getLogger(LedgerWorker.class);
  private static final long PID = ProcessHandle.current().pid();

  private final LockOptions options;
  private final FencedFile ledger;
  private final Path outDir;
  private final int iterations;
  private final boolean tolerant;
  private final AtomicBoolean stop = new AtomicBoolean();
  private final AtomicInteger failures = new AtomicInteger();
  private final Writer errors;
  private final ReentrantLock errorsLock = new ReentrantLock();
  // The provider's health last looked at (under errorsLock), to note each outage once.
  private @Nullable ProviderHealth circuit;

  /**
   * What the worker JVMs of a scenario do, in the order of the arguments.
   *
   * @param iterations per thread, or 0 to run until {@code stop}
   * @param tolerant whether errors are recorded and gone past rather than ending the thread
   */
  record Job(
      String lockId,
      int threads,
      int iterations,
      Path ledger,
      Duration ttl,
      Duration waitTimeout,
      boolean tolerant) {

    /**
     * Starts {@code jvms} workers on {@code url}, their logs and records in {@code dir}. Each is
     * added to {@code started} as it starts, so the caller closes those that did when a later one
     * fails to.
     */
    void start(int jvms, String url, Path dir, List<ChildJvm> started) {
      for (int i = 0; i < jvms; i++) {
        started.add(
            Workers.start(
                LedgerWorker.class,
                dir.resolve("worker-" + i + ".log"),
                url,
                lockId,
                Integer.toString(threads),
                Integer.toString(iterations),
                ledger.toString(),
                dir.toString(),
                ttl.toString(),
                waitTimeout.toString(),
                Boolean.toString(tolerant)));
      }
    }
  }

  private LedgerWorker(String[] args) throws IOException {
    this.options =
        LockOptions.named(args[1])
            .withTtl(Duration.parse(args[6]))
            .withWaitTimeout(Duration.parse(args[7]));
    this.iterations = Integer.parseInt(args[3]);
    this.ledger = new FencedFile(Path.of(args[4]));
    this.outDir = Path.of(args[5]);
    this.tolerant = Boolean.parseBoolean(args[8]);
    this.errors = WorkerIo.appender(outDir.resolve("errors-" + PID));
  }

  /** Runs the worker; exits 0 when every thread finished without an error it could not take. */
  public static void main(String[] args) throws Exception {
    LedgerWorker worker = new LedgerWorker(args);
    int threads = Integer.parseInt(args[2]);
    BlockingQueue<String> commands = WorkerIo.commands();
    Thread stopper =
        new Thread(
            () -> {
              try {
                while (!"stop".equals(commands.take())) {
                  // only stop means anything to this worker
                }
                worker.stop.set(true);
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              }
            },
            "stopper");
    stopper.setDaemon(true);
    stopper.start();
    int code = worker.run(args[0], threads);
    System.exit(code);
  }

  private int run(String url, int threads) throws InterruptedException, IOException {
    LockListener listener =
        new LockListener() {
          @Override
          public void error(LockEvent event, Throwable error) {
            note("listener-error", error.toString());
          }

          @Override
          public void lost(LockEvent event, String reason) {
            note("lost", "token " + event.fencingToken() + ": " + reason);
          }
        };
    try (Locksmith locksmith =
        Locksmith.builder().defaultProvider(LockProviders.create(url)).listener(listener).build()) {
      circuit = locksmith.health().get(0);
      List<Thread> running = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        int index = t;
        Thread thread = new Thread(() -> loop(locksmith, index), "ledger-" + t);
        thread.start();
        running.add(thread);
      }
      for (Thread thread : running) {
        thread.join(TimeUnit.MINUTES.toMillis(10));
      }
    } finally {
      errorsLock.lock();
      try {
        errors.close();
      } finally {
        errorsLock.unlock();
      }
    }
    return failures.get() == 0 ? 0 : 1;
  }

  private void loop(Locksmith locksmith, int thread) {
    try (Writer sections =
        WorkerIo.appender(outDir.resolve(Section.FILE_PREFIX + PID + "-" + thread))) {
      for (int i = 0; (iterations == 0 || i < iterations) && !stop.get(); ) {
        try {
          sections.write(section(locksmith, thread).toLine() + "\n");
          sections.flush();
          noteOutage(locksmith);
          i++;
        } catch (StaleFencingTokenException e) {
          note("refused", e.getMessage());
          if (!tolerate(e)) {
            return;
          }
        } catch (LockException e) {
          note("error", e.toString());
          noteOutage(locksmith);
          if (!tolerate(e)) {
            return;
          }
        }
      }
    } catch (IOException | RuntimeException e) {
      LOG.error("ledger thread {} failed", thread, e);
      failures.incrementAndGet();
    }
  }

  private Section section(Locksmith locksmith, int thread) {
    try (Lease lease = locksmith.acquire(options)) {
      long start = System.nanoTime();
      long value = WorkerIo.ledgerValue(ledger.read().value()) + 1;
      ledger.write(lease.fencingToken(), Long.toString(value));
      boolean confirmed = lease.isValid();
      long end = System.nanoTime();
      return new Section(PID, thread, lease.fencingToken(), start, end, value, confirmed);
    }
  }

  private boolean tolerate(RuntimeException e) {
    if (!tolerant) {
      LOG.error("strict worker stops at its first error", e);
      failures.incrementAndGet();
      return false;
    }
    LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(50)); // back off before retrying
    return true;
  }

  /**
   * Notes an outage when the provider's circuit changed state since the last look and is open, or
   * is closed but was closed last time too (it opened and closed between two looks); a circuit
   * still open, or closed again after an outage already noted, adds nothing.
   */
  private void noteOutage(Locksmith locksmith) {
    ProviderHealth now = locksmith.health().get(0); // the default provider, the only one
    String outage = null;
    errorsLock.lock();
    try {
      ProviderHealth before = circuit;
      circuit = now;
      if (before == null || before.since().equals(now.since())) {
        return;
      }
      if (!now.up()) {
        outage = "down: " + now.problem(); // a new outage, or a new one after an outage noted
      } else if (before.up()) {
        outage = "down and back up between two looks";
      } // else the outage noted last time ended
    } finally {
      errorsLock.unlock();
    }
    if (outage != null) {
      note("outage", outage);
    }
  }

  private void note(String kind, String message) {
    errorsLock.lock();
    try {
      errors.write(System.nanoTime() + " " + kind + " " + message.replace('\n', ' ') + "\n");
      errors.flush();
    } catch (IOException e) {
      LOG.warn("cannot record {}: {}", kind, message, e);
    } finally {
      errorsLock.unlock();
    }
  }
}
