package dev.locksmith.core;

import dev.locksmith.core.spi.LeaseGrant;
import dev.locksmith.core.spi.LockIdText;
import dev.locksmith.core.spi.LockProvider;
import dev.locksmith.core.spi.ProviderUrl;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The outage circuit of one provider. Closed (up) while the provider answers; opened (down) by a
 * call that fails with a provider error, after which locked calls on the provider fail fast with a
 * {@link LockProviderException} instead of each waiting for the client's own timeout. While open, a
 * background probe ({@code status} of {@link #PROBE_LOCK_ID}) runs every probe interval, at most
 * one at a time; its answer, or any real call's, closes the circuit.
 *
 * <p>Any answer closes the circuit, whenever its call started: it shows the provider answers now. A
 * failure opens it only if the call started while it was closed and after it last closed: a failure
 * by timeout tells of the provider as it was a client timeout ago, so a call that hung through an
 * outage and fails after the provider came back does not reopen it. A busy answer (the lock is
 * held) is an answer. Errors of configuration or arguments ({@link LockException}s other than
 * {@link LockProviderException}, {@link IllegalArgumentException}, {@link
 * UnsupportedOperationException}) are answers too: the provider was reached; so is a {@link
 * LockRecordException}, a fault of one lock's record. The probes are {@link OutageProbe}'s.
 *
 * <p>A WAIT does not fail fast while the circuit is open: it waits for the circuit to close ({@link
 * #awaitBack}), with back-off ({@link OutageBackoff}), and asks again only then, so its retries
 * reach the provider no more often than the probes do.
 *
 * <p>Exactly one line is logged per change of state: WARN when the provider goes down, INFO when it
 * is back. The failures themselves, with stack traces, are logged at DEBUG.
 */
final class ProviderCircuit {
  /** The lock id whose status the probes ask for; no lock of that id need exist. */
  static final String PROBE_LOCK_ID = "locksmith-probe";

  static final String ACQUIRED = "acquired";
  static final String RENEWED = "renewed";
  static final String RELEASED = "released";

  private static final Logger LOG = LoggerFactory.getLogger(ProviderCircuit.class);

  /** Runs tasks off the callers' threads: the engine's own executor. */
  interface Background {
    /** Runs the task after the delay; does nothing once the engine is closed. */
    void runAfter(Duration delay, Runnable task);
  }

  /**
   * A provider call: {@code E} is {@link InterruptedException} for one that may wait, and is
   * inferred as {@link RuntimeException} for a lambda that throws no checked exception.
   */
  @FunctionalInterface
  interface Call<T, E extends Exception> {
    T run() throws E;
  }

  /**
   * A state of the circuit; a new object on every change, so a call can tell whether the state
   * changed since it started.
   */
  private record State(
      boolean up, @Nullable String problem, Instant since, long sinceNanos, String sinceText) {
    State(boolean up, @Nullable String problem, Instant since, long sinceNanos) {
      // Formatted once, as the state changes, so that failing fast formats no date.
      this(up, problem, since, sinceNanos, up ? "" : since.toString());
    }
  }

  private final String name;
  private final LockProvider provider;
  private final String description;
  private final Ticker ticker;
  private final OutageProbe probe;
  private final AtomicReference<State> state;
  private volatile boolean stopped;
  private final boolean releasesAtOnce;
  // Signalled when the circuit closes or stops, for the WAITs riding through an outage.
  private final ReentrantLock changes = new ReentrantLock();
  private final Condition back = changes.newCondition();

  ProviderCircuit(
      String name,
      LockProvider provider,
      Ticker ticker,
      Background background,
      Duration probeInterval,
      Instant startedAt) {
    this.name = name;
    this.provider = provider;
    this.description = ProviderUrl.redact(provider.description());
    this.ticker = ticker;
    this.probe = new OutageProbe(this, background, probeInterval);
    this.state = new AtomicReference<>(new State(true, null, startedAt, ticker.read()));
    this.releasesAtOnce = keepsDefaultReleaseAsync(provider);
  }

  private static boolean keepsDefaultReleaseAsync(LockProvider provider) {
    try {
      return provider.getClass().getMethod("releaseAsync", LeaseGrant.class).getDeclaringClass()
          == LockProvider.class;
    } catch (NoSuchMethodException | SecurityException e) {
      return false;
    }
  }

  /**
   * Whether the provider keeps the SPI's default {@link LockProvider#releaseAsync}, which releases
   * on the calling thread: the engine then calls {@link LockProvider#release} itself.
   */
  boolean releasesAtOnce() {
    return releasesAtOnce;
  }

  String name() {
    return name;
  }

  LockProvider provider() {
    return provider;
  }

  /** The provider's description with any password masked. */
  String description() {
    return description;
  }

  boolean isUp() {
    return state.get().up();
  }

  ProviderHealth health() {
    State now = state.get();
    return new ProviderHealth(name, description, now.up(), now.problem(), now.since());
  }

  /**
   * Runs a provider call: fails fast while the circuit is open, and lets the outcome update the
   * circuit.
   *
   * @param lockId the lock the call is for, for the fast failure's message
   * @param action what the call does, for the fast failure's message: {@link #ACQUIRED}, {@link
   *     #RENEWED} or {@link #RELEASED}
   * @throws ProviderDownException while the circuit is open, without calling the provider
   * @throws E what the call throws, such as {@link InterruptedException} from a wait
   */
  <T, E extends Exception> T call(Call<T, E> call, String lockId, String action) throws E {
    State at = state.get();
    if (!at.up()) {
      throw down(at, lockId, action);
    }
    T result;
    try {
      result = call.run();
    } catch (RuntimeException e) {
      failed(at, e);
      throw e;
    }
    answered();
    return result;
  }

  /**
   * Runs a provider call that answers with a stage: fails fast while the circuit is open, and lets
   * the outcome update the circuit when the stage completes (inline when it is already complete).
   *
   * @throws ProviderDownException while the circuit is open, without calling the provider
   * @throws RuntimeException what starting the call throws
   */
  <T> CompletionStage<T> callAsync(
      Supplier<CompletionStage<T>> call, String lockId, String action) {
    State at = state.get();
    if (!at.up()) {
      throw down(at, lockId, action);
    }
    CompletionStage<T> stage;
    try {
      stage = call.get();
    } catch (RuntimeException e) {
      failed(at, e);
      throw e;
    }
    if (stage instanceof CompletableFuture<T> done && done.isDone()) {
      if (done.isCompletedExceptionally()) {
        done.whenComplete((value, error) -> failed(at, Causes.unwrapCompletion(error)));
      } else {
        answered();
      }
      return done;
    }
    return stage.whenComplete(
        (value, error) -> {
          if (error == null) {
            answered();
          } else {
            failed(at, Causes.unwrapCompletion(error));
          }
        });
  }

  private ProviderDownException down(State at, String lockId, String action) {
    return new ProviderDownException(
        "Lock "
            + LockIdText.quoted(lockId)
            + " not "
            + action
            + ": lock provider "
            + name
            + " ("
            + description
            + ") is down since "
            + at.sinceText()
            + " ("
            + seconds(ticker.read() - at.sinceNanos())
            + " s): "
            + at.problem()
            + "; locked calls on it fail fast until it answers");
  }

  /**
   * Whether an exception a provider call threw means the provider could not answer (its store is
   * unreachable or failing), as opposed to a mistake in what it was asked.
   */
  static boolean isProviderFailure(RuntimeException error) {
    if (error instanceof LockProviderException) {
      return true;
    }
    return !(error instanceof LockException
        || error instanceof IllegalArgumentException
        || error instanceof UnsupportedOperationException);
  }

  /**
   * Whether a provider call's exception opens the circuit: a provider failure other than a fault of
   * one lock's record ({@link LockRecordException}), which leaves the provider's other locks
   * working.
   */
  static boolean opensCircuit(RuntimeException error) {
    return isProviderFailure(error) && !(error instanceof LockRecordException);
  }

  /** Closes the circuit: the provider answered. */
  private void answered() {
    State down = state.get();
    if (down.up() || stopped) {
      return;
    }
    State up = new State(true, null, Instant.now(), ticker.read());
    if (state.compareAndSet(down, up)) {
      signalBack();
      LOG.info(
          "Lock provider {} is back after {} s",
          name,
          seconds(up.sinceNanos() - down.sinceNanos()));
    }
  }

  /** Opens the circuit on a provider failure of a call that started while it was closed. */
  private void failed(State at, RuntimeException error) {
    if (!isProviderFailure(error) || Causes.byInterrupt(error)) {
      // An interrupted caller (a cancelled task), not a store that could not answer.
      return;
    }
    if (!opensCircuit(error)) {
      answered(); // the store answered: only that lock's record failed
      return;
    }
    LOG.debug("Lock provider {} ({}) failed", name, description, error);
    if (!at.up() || stopped) {
      return;
    }
    String problem = Causes.oneLine(error);
    if (state.compareAndSet(at, new State(false, problem, Instant.now(), ticker.read()))) {
      LOG.warn(
          "Lock provider {} ({}) is down: {}; locked calls on it fail fast until it answers",
          name,
          description,
          problem);
      probe.afterInterval();
    }
  }

  /** Probes the provider in the background after the delay, unless a probe is already due. */
  void probeAfter(Duration delay) {
    probe.after(delay);
  }

  /** Probes the provider once, on the calling thread, and lets the outcome update the circuit. */
  void probeOnce() {
    State at = state.get();
    RuntimeException failure = check();
    if (failure == null) {
      answered();
    } else {
      failed(at, failure);
    }
  }

  /**
   * Asks the provider for the status of the probe lock now, on the calling thread.
   *
   * @return the provider failure, or {@code null} when the provider answered
   */
  @Nullable RuntimeException check() {
    try {
      provider.status(PROBE_LOCK_ID);
      return null;
    } catch (RuntimeException e) {
      return isProviderFailure(e) ? e : null;
    }
  }

  /** Ends probing and state changes: the engine is closing and its providers with it. */
  void stop() {
    stopped = true;
    signalBack();
  }

  /** Whether {@link #stop()} was called. */
  boolean isStopped() {
    return stopped;
  }

  private void signalBack() {
    changes.lock();
    try {
      back.signalAll();
    } finally {
      changes.unlock();
    }
  }

  /**
   * Waits up to {@code nanos} (real time) for the circuit to close, for a WAIT that a provider
   * failure interrupted: returns early when the circuit was open on entry and closes meanwhile, or
   * when the circuit stops; a circuit closed on entry (the failure did not open it) is waited on
   * for the full time. Never calls the provider.
   *
   * @throws InterruptedException if the thread is interrupted while waiting
   */
  void awaitBack(long nanos) throws InterruptedException {
    boolean upOnEntry = state.get().up();
    long deadline = System.nanoTime() + nanos;
    changes.lock();
    try {
      while (!stopped && (upOnEntry || !state.get().up())) {
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          return;
        }
        back.awaitNanos(left);
      }
    } finally {
      changes.unlock();
    }
  }

  /** Nanoseconds as seconds with one decimal, such as {@code 12.3}. */
  static String seconds(long nanos) {
    long tenths = Math.max(0, nanos) / 100_000_000;
    return tenths / 10 + "." + tenths % 10;
  }
}
