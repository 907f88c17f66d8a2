package dev.locksmith.cli;

import dev.locksmith.core.Lease;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * What Ctrl-C or SIGTERM stops in {@code locksmith run}. While the lock is being taken, the hook
 * ends the wait and closes the provider, so that a queue position (a ZooKeeper waiter node, which
 * would otherwise outlive the JVM by the session timeout) is given up at once. From the moment the
 * lease is held: COMMAND's group, in a session of its own, gets neither signal, so the JVM's
 * shutdown hook stops it as on a lost lease and then releases the lease, so that other hosts need
 * not wait out the ttl. The group is started under the same lock the hook stops it under: a signal
 * while COMMAND starts stops it once started, and a signal before that keeps it from starting.
 * Installed after the group had started, a signal in between exited the JVM and left COMMAND
 * running without the lock. The hook returns only once the release is confirmed ({@code
 * afterRelease} closes the engine, which waits for it): the JVM halts when its hooks end, and a
 * release still on its way (Redis sends it asynchronously) was lost with it, leaving other hosts to
 * wait out the ttl.
 */
final class SignalStop implements AutoCloseable {
  /**
   * The least time a signal waits for an interrupted taking to end, whatever {@code --grace} (the
   * time COMMAND gets between SIGTERM and SIGKILL): a grant arriving then is released by the taking
   * thread, which needs the engine open until it has.
   */
  static final Duration ACQUIRE_END_WAIT = Duration.ofSeconds(5);

  private final Duration grace;
  private final Consumer<String> report;
  private final Runnable afterRelease;
  private final Runnable stopWaiting;
  private final Thread hook;
  private @Nullable Lease lease;
  private @Nullable ProcessGroup group;
  private boolean stopping;
  private @Nullable Process untilTest;
  // The thread that takes the lock, and the end of its taking: held, released or failed.
  private final Thread acquirer = Thread.currentThread();
  private final CountDownLatch acquireEnded = new CountDownLatch(1);
  // Counted down once the hook has done its work (stop() ran to its end).
  private final CountDownLatch stopped = new CountDownLatch(1);

  private SignalStop(
      Duration grace, Consumer<String> report, Runnable afterRelease, Runnable stopWaiting) {
    this.grace = grace;
    this.report = report;
    this.afterRelease = afterRelease;
    this.stopWaiting = stopWaiting;
    this.hook = new Thread(this::stop, "locksmith-run-stop");
  }

  /**
   * Acts on a signal from now on, until closed: before {@link #hold} it interrupts the calling
   * thread (which takes the lock), waits up to {@code grace}, and at least {@link
   * #ACQUIRE_END_WAIT}, for its taking to end ({@link #hold} or {@link #acquireEnded}) and runs
   * {@code stopWaiting} (closing the engine and the provider); after, it stops COMMAND, releases
   * the lease and runs {@code afterRelease}, which waits until the release is confirmed (the
   * engine's close).
   */
  static SignalStop install(
      Duration grace, Consumer<String> report, Runnable afterRelease, Runnable stopWaiting) {
    SignalStop stop = new SignalStop(grace, report, afterRelease, stopWaiting);
    Runtime.getRuntime().addShutdownHook(stop.hook);
    return stop;
  }

  /**
   * From now on a signal releases {@code held}.
   *
   * @throws Failure when the JVM is stopping on a signal (the hook has said so already), once
   *     {@code held} is released
   */
  void hold(Lease held) {
    synchronized (this) {
      if (!stopping) {
        lease = held;
        acquireEnded.countDown();
        return;
      }
      // The hook's interrupt, sent before stopping was set, ended no wait: what follows is no wait.
      Thread.interrupted();
    }
    // Granted as the signal came: released here, while the hook keeps the engine open for it.
    try {
      held.close();
    } finally {
      acquireEnded.countDown();
    }
    throw Failure.stoppedBySignal("stopped by a signal while taking the lock");
  }

  /** Taking the lock ended without a lease (skipped, failed, or ended by the signal). */
  void acquireEnded() {
    synchronized (this) {
      if (stopping) {
        Thread.interrupted(); // the hook's, which has done its work
      }
    }
    acquireEnded.countDown();
  }

  /** Whether a signal is stopping the run: what failed then failed because of it. */
  synchronized boolean isStopping() {
    return stopping;
  }

  /**
   * Starts COMMAND's group with {@code start}, unless a signal came first.
   *
   * @throws Failure when the JVM is stopping on a signal (the hook has said so already)
   */
  synchronized ProcessGroup start(Supplier<ProcessGroup> start) {
    if (stopping) {
      throw Failure.stoppedBySignal("stopped by a signal before COMMAND started");
    }
    ProcessGroup started = start.get();
    group = started;
    return started;
  }

  /**
   * The {@code --until} test running now ({@code null} once it ended): a signal kills it with
   * COMMAND's group, which is gone by then.
   *
   * @return false when a signal is stopping the run already (the test was not recorded)
   */
  synchronized boolean untilTest(@Nullable Process test) {
    if (stopping && test != null) {
      return false;
    }
    untilTest = test;
    return true;
  }

  /** The shutdown hook, for tests that run it as the JVM would (it is installed, not started). */
  Thread hookForTests() {
    return hook;
  }

  private void stop() {
    try {
      stopAndRelease();
    } finally {
      stopped.countDown();
    }
  }

  private void stopAndRelease() {
    ProcessGroup started;
    Lease held;
    Process test;
    synchronized (this) {
      stopping = true;
      started = group;
      held = lease;
      test = untilTest;
      if (held == null) {
        // Ends a wait; sent under the lock, so that the taking thread, seeing stopping, can clear
        // it for good. A lease granted meanwhile is released by that thread before the close.
        acquirer.interrupt();
      }
    }
    if (test != null) {
      test.descendants().forEach(ProcessHandle::destroyForcibly);
      test.destroyForcibly();
    }
    if (held == null) {
      report.accept("stopped by a signal while waiting for the lock; nothing ran");
      try {
        acquireEnded.await(
            Math.max(grace.toMillis(), ACQUIRE_END_WAIT.toMillis()), TimeUnit.MILLISECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      } finally {
        stopWaiting.run();
      }
      return;
    }
    if (started == null) {
      report.accept("stopped by a signal before COMMAND started; releasing the lock");
    } else if (started.isEmptied()) {
      // COMMAND's group is gone (the run waits for --until): nothing of it to stop.
      report.accept("stopped by a signal after COMMAND ended; releasing the lock");
    } else {
      started.stop(
          grace,
          () -> report.accept("stopped by a signal; stopping COMMAND and releasing the lock"));
    }
    held.close();
    afterRelease.run();
  }

  /**
   * Removes the hook, or, when the JVM is already stopping, lets it finish stopping COMMAND and
   * releasing; then ends the group's signalling.
   */
  @Override
  public void close() {
    try {
      Runtime.getRuntime().removeShutdownHook(hook);
    } catch (IllegalStateException shuttingDown) {
      // No bound: the JVM waits for the hook to end anyway, and closing the engine and provider
      // here before it has would cut short the release it waits for. The hook may not have been
      // started yet (the JVM takes the hooks out of its list first), so wait for its work, not
      // for its thread.
      boolean interrupted = false;
      while (true) {
        try {
          stopped.await();
          break;
        } catch (InterruptedException e) {
          interrupted = true;
        }
      }
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
    ProcessGroup started;
    synchronized (this) {
      started = group;
    }
    if (started != null) {
      started.close();
    }
  }
}
