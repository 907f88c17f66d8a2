package dev.locksmith.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.locksmith.annotation.OnBusy;
import dev.locksmith.core.memory.MemoryLockProvider;
import dev.locksmith.core.spi.LeaseGrant;
import dev.locksmith.core.spi.LockProvider;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A release sent without waiting for its answer: the caller returns at once, and the lease counts
 * as held (no released event, deadline watched, close waiting) until the provider confirms it or
 * the deadline passes; what a failed release reports is what a synchronous release reported.
 */
class AsyncReleaseTest {
  private final MemoryLockProvider store = MemoryLockProvider.isolated();
  private final DeferredReleases provider = new DeferredReleases(store);
  private final RecordingListener events = new RecordingListener();
  private final List<String> releasedOn = new CopyOnWriteArrayList<>();
  private final List<Locksmith> engines = new ArrayList<>();

  @AfterEach
  void closeEngines() {
    provider.pending.forEach(p -> p.answer().complete(true));
    engines.forEach(Locksmith::close);
  }

  private Locksmith engine(LockProvider lockProvider, Duration shutdownTimeout) {
    Locksmith locksmith =
        Locksmith.builder()
            .defaultProvider(lockProvider)
            .listener(events)
            .listener(
                new LockListener() {
                  @Override
                  public void released(LockEvent event, Duration held) {
                    releasedOn.add(Thread.currentThread().getName());
                  }
                })
            .shutdownTimeout(shutdownTimeout)
            .build();
    engines.add(locksmith);
    return locksmith;
  }

  @Test
  void aCallReturnsBeforeItsReleaseIsConfirmedAndItsLeaseCountsAsHeldUntilThen() throws Exception {
    Locksmith locksmith = engine(provider, Duration.ofSeconds(30));
    assertThat(locksmith.run(LockOptions.named("report"), () -> {})).isTrue();

    DeferredReleases.Pending sent = provider.pending.peek();
    assertThat(sent).as("the release was sent as the call returned").isNotNull();
    assertThat(events.events).containsExactly("acquired report");
    assertThat(store.status("report").currentHolder()).isPresent();
    assertThat(locksmith.keeper().runningCalls()).isEqualTo(1);
    assertThat(locksmith.keeper().pendingReleases().count()).isEqualTo(1);

    CountDownLatch closed = new CountDownLatch(1);
    Thread closer =
        new Thread(
            () -> {
              locksmith.close();
              closed.countDown();
            });
    closer.start();
    assertThat(closed.await(300, TimeUnit.MILLISECONDS))
        .as("close() waits for the unconfirmed release")
        .isFalse();
    assertThat(events.events).containsExactly("acquired report");

    provider.confirmNext();
    assertThat(closed.await(10, TimeUnit.SECONDS)).isTrue();
    assertThat(events.events).containsExactly("acquired report", "released report");
    assertThat(store.status("report").currentHolder()).isEmpty();
    assertThat(releasedOn).singleElement().asString().startsWith("locksmith-completions-");
  }

  @Test
  void whenEveryListenerAllowsIoThreadsTheAnswerIsHandledWhereItArrives() throws Exception {
    List<String> toldOn = new CopyOnWriteArrayList<>();
    Locksmith locksmith = ioThreadEngine(new ThreadRecorder(toldOn, true));
    assertThat(locksmith.run(LockOptions.named("report"), () -> {})).isTrue();

    provider.confirmNext();

    // The lease's counts drop just after the event, on the same thread.
    await()
        .atMost(Duration.ofSeconds(10))
        .until(
            () ->
                !toldOn.isEmpty()
                    && locksmith.keeper().pendingReleases().count() == 0
                    && locksmith.keeper().runningCalls() == 0);
    assertThat(toldOn).singleElement().asString().startsWith("test-io-");
    assertThat(store.status("report").currentHolder()).isEmpty();
  }

  @Test
  void oneListenerThatDoesNotAllowIoThreadsKeepsTheHandOver() throws Exception {
    List<String> toldOn = new CopyOnWriteArrayList<>();
    Locksmith locksmith =
        ioThreadEngine(new ThreadRecorder(toldOn, true), new ThreadRecorder(toldOn, false));
    assertThat(locksmith.run(LockOptions.named("report"), () -> {})).isTrue();

    provider.confirmNext();

    await().atMost(Duration.ofSeconds(10)).until(() -> toldOn.size() == 2);
    assertThat(toldOn).allSatisfy(name -> assertThat(name).startsWith("locksmith-completions-"));
  }

  private Locksmith ioThreadEngine(LockListener... listeners) {
    LocksmithBuilder builder = Locksmith.builder().defaultProvider(provider);
    for (LockListener listener : listeners) {
      builder.listener(listener);
    }
    Locksmith locksmith = builder.build();
    engines.add(locksmith);
    return locksmith;
  }

  /** Records the thread each release is told on; allows I/O threads or not, as it is made. */
  private record ThreadRecorder(List<String> toldOn, boolean allowsIoThreads)
      implements LockListener {
    @Override
    public void released(LockEvent event, Duration held) {
      toldOn.add(Thread.currentThread().getName());
    }
  }

  @Test
  void aProgrammaticLeaseClosedIsNotReenteredAndCloseWaitsForItsRelease() throws Exception {
    CountingProvider counting = new CountingProvider(provider);
    Locksmith locksmith = engine(counting, Duration.ofSeconds(30));
    Lease lease = locksmith.acquire(LockOptions.named("report"));
    long token = lease.fencingToken();
    lease.close();
    assertThat(lease.isValid()).isFalse();
    assertThat(events.events).containsExactly("acquired report");

    // Not reentered: a new acquisition asks the provider, which still holds the old lease.
    assertThat(locksmith.tryAcquire(LockOptions.named("report"))).isEmpty();
    assertThat(counting.calls)
        .containsExactly("acquire report", "release report", "tryAcquire report");

    provider.confirmNext();
    await()
        .atMost(Duration.ofSeconds(10))
        .until(
            () ->
                events.events.contains("released report")
                    && locksmith.keeper().pendingReleases().count() == 0);
    try (Lease again = locksmith.acquire(LockOptions.named("report"))) {
      assertThat(again.fencingToken()).isGreaterThan(token);
    }
  }

  @Test
  void closeGivesUpOnUnconfirmedReleasesAfterItsTimeoutNamingHowMany() throws Exception {
    Locksmith locksmith = engine(provider, Duration.ofMillis(300));
    for (int i = 0; i < 3; i++) {
      locksmith.acquire(LockOptions.named("report").withKey("k" + i)).close();
    }
    try (ConsoleLog log = new ConsoleLog()) {
      long start = System.nanoTime();
      locksmith.close();
      assertThat(Duration.ofNanos(System.nanoTime() - start))
          .isBetween(Duration.ofMillis(250), Duration.ofSeconds(5));
      assertThat(log.lines("WARN", "3 release(s) unconfirmed after 300ms"))
          .as(String.join("\n", log.lines()))
          .hasSize(1);
    }
  }

  @Test
  void theDeadlinePassingWhileReleasingEndsTheLeaseWithOneReleasedAndNoLoss() throws Exception {
    Locksmith locksmith = engine(provider, Duration.ofSeconds(30));
    locksmith.run(LockOptions.named("short").withTtl(Duration.ofMillis(300)), () -> {});
    DeferredReleases.Pending sent = provider.next();

    await().atMost(Duration.ofSeconds(5)).until(() -> events.events.contains("released short"));
    // The call stops counting as running, and its release as pending, right after the event.
    await()
        .atMost(Duration.ofSeconds(5))
        .until(
            () ->
                locksmith.keeper().runningCalls() == 0
                    && locksmith.keeper().pendingReleases().count() == 0);

    // The late answer (the store had let the lease go) changes nothing.
    CompletableFuture.runAsync(() -> sent.answer().complete(store.release(sent.lease())));
    await().atMost(Duration.ofSeconds(5)).until(() -> sent.answer().isDone());
    locksmith.close();
    assertThat(events.events).containsExactly("acquired short", "released short");
  }

  @Test
  void aReleaseAnsweredWithoutTheHolderReportsTheLossAsASynchronousReleaseDoes() throws Exception {
    List<String> sync = failedRelease(new Refusing(store, p -> false), null);
    List<String> async = failedRelease(provider, p -> false);
    assertThat(async).isEqualTo(sync);
    assertThat(sync.get(0)).isEqualTo("events: acquired x, lost x, released x");
  }

  @Test
  void aReleaseThatFailsReportsTheErrorAsASynchronousReleaseDoes() throws Exception {
    Function<DeferredReleases.Pending, Boolean> failing =
        p -> {
          throw new IllegalArgumentException("the release went wrong");
        };
    List<String> sync = failedRelease(new Refusing(store, failing), null);
    List<String> async = failedRelease(provider, failing);
    assertThat(async).isEqualTo(sync);
    assertThat(sync.get(0))
        .isEqualTo("events: acquired x, error x the release went wrong, released x");
    assertThat(sync)
        .contains(
            "WARN Releasing lock 'x' failed; it will expire by its ttl:"
                + " IllegalArgumentException: the release went wrong");
  }

  @Test
  void aReleaseAnsweredAtOnceIsHandledOnTheCallersThread() throws Exception {
    Locksmith locksmith = engine(store, Duration.ofSeconds(30));
    locksmith.run(LockOptions.named("inline"), () -> {});
    assertThat(events.events).containsExactly("acquired inline", "released inline");
    assertThat(releasedOn).containsExactly(Thread.currentThread().getName());
    assertThat(locksmith.keeper().runningCalls()).isZero();
    assertThat(locksmith.keeper().pendingReleases().count()).isZero();
  }

  @Test
  void anUnusedLateGrantsReleaseIsSentOnTheCallersThreadWithoutWaiting() {
    VirtualTicker ticker = new VirtualTicker();
    ScriptedProvider scripted = new ScriptedProvider(ticker);
    DeferredReleases deferring = new DeferredReleases(scripted);
    scripted.grantShapes.add(g -> g.renewed(g.ttl(), ticker.read() - 1));
    scripted.renewAnswers.add(false);
    try (Locksmith locksmith =
        Locksmith.builder().defaultProvider(deferring).ticker(ticker).listener(events).build()) {
      assertThatThrownBy(
              () -> locksmith.tryAcquire(LockOptions.named("slow").withTtl(Duration.ofMillis(20))))
          .isInstanceOf(LockProviderException.class)
          .hasMessageContaining("use a longer ttl");
      // Sent before tryAcquire returned, through releaseAsync: no thread was needed.
      assertThat(deferring.pending)
          .singleElement()
          .satisfies(p -> assertThat(p.lease().lockId()).isEqualTo("slow"));
      assertThat(scripted.calls).containsExactly("tryAcquire", "renew");
      deferring.pending.poll().answer().complete(true);
    }
  }

  /**
   * Runs one call on {@code lockProvider}, answering its release with {@code answer} when it is
   * deferred; gives the events and the engine's WARN lines.
   */
  private List<String> failedRelease(
      LockProvider lockProvider, Function<DeferredReleases.Pending, Boolean> answer)
      throws Exception {
    RecordingListener own = new RecordingListener();
    List<String> out = new ArrayList<>();
    try (ConsoleLog log = new ConsoleLog();
        Locksmith locksmith =
            Locksmith.builder().defaultProvider(lockProvider).listener(own).build()) {
      locksmith.run(LockOptions.named("x").withOnBusy(OnBusy.FAIL), () -> {});
      if (answer != null) {
        provider.answerNext(answer);
        await().atMost(Duration.ofSeconds(10)).until(() -> own.events.contains("released x"));
      }
      out.add("events: " + String.join(", ", own.events));
      log.lines().stream()
          .filter(line -> line.contains("] WARN ") || line.contains("] INFO "))
          .map(
              line ->
                  line.substring(line.indexOf("] ") + 2)
                      .replace(" dev.locksmith.core.ActiveLease -", ""))
          .forEach(out::add);
    }
    return out;
  }

  /** A store whose synchronous release answers as {@code answer} says, after releasing. */
  private static final class Refusing extends ForwardingProvider {
    private final Function<DeferredReleases.Pending, Boolean> answer;

    Refusing(LockProvider delegate, Function<DeferredReleases.Pending, Boolean> answer) {
      super(delegate);
      this.answer = answer;
    }

    @Override
    public boolean release(LeaseGrant lease) {
      delegate.release(lease);
      return answer.apply(new DeferredReleases.Pending(lease, new CompletableFuture<Boolean>()));
    }
  }
}
