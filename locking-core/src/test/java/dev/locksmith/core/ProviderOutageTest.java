package dev.locksmith.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.awaitility.Awaitility.await;

import dev.locksmith.annotation.OnBusy;
import dev.locksmith.core.internal.KeyLanguage;
import dev.locksmith.core.memory.MemoryLockProvider;
import dev.locksmith.core.spi.LeaseGrant;
import dev.locksmith.core.spi.LockRequest;
import java.io.IOException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The outage circuit: a provider error opens it, locked calls then fail fast without reaching the
 * provider, a background probe or an answered call closes it, and {@link Locksmith#health()} shows
 * it without asking the provider.
 */
class ProviderOutageTest extends OutageFixture {
  private static final Duration NEVER = Duration.ofHours(1);

  private static LockOptions tick(String name) {
    return LockOptions.named(name).withOnBusy(OnBusy.SKIP);
  }

  @Test
  void aFailureThatAnInterruptCausedLeavesTheCircuitClosedAndATimeoutOpensIt() {
    try (Locksmith locksmith = started(NEVER)) {
      provider.failure.set(
          () ->
              new LockProviderException(
                  "acquire interrupted", new java.nio.channels.ClosedByInterruptException()));
      provider.down.set(true);
      assertThatThrownBy(() -> locksmith.run(tick("report"), () -> {}))
          .isInstanceOf(LockProviderException.class)
          .hasMessage("acquire interrupted");
      assertThat(locksmith.health()).allMatch(ProviderHealth::up);

      // A socket timeout is an InterruptedIOException too, and a store's silence.
      provider.failure.set(
          () ->
              new LockProviderException(
                  "read timed out", new java.net.SocketTimeoutException("Read timed out")));
      assertThatThrownBy(() -> locksmith.run(tick("report"), () -> {}))
          .isInstanceOf(LockProviderException.class);
      assertThat(locksmith.health()).noneMatch(ProviderHealth::up);
    }
  }

  @Test
  void aProviderErrorOpensTheCircuitAndLockedCallsThenFailFastWithoutCallingTheProvider() {
    try (Locksmith locksmith = started(NEVER)) {
      provider.down.set(true);
      assertThatThrownBy(() -> locksmith.run(tick("report"), () -> {}))
          .isInstanceOf(LockProviderException.class)
          .hasMessage(OutageProvider.FAILURE);
      int reached = provider.lockCalls.get();
      // From here a call that reached the provider would hang for 10 s, as on a server that does
      // not answer.
      provider.lockGate.set(new CountDownLatch(1));

      long longest = 0;
      for (int i = 0; i < 200; i++) {
        // SKIP and FAIL; a WAIT waits through an outage instead (WaitThroughOutageTest).
        LockOptions options =
            i % 2 == 0 ? tick("report") : LockOptions.named("pay").withOnBusy(OnBusy.FAIL);
        long started = System.nanoTime();
        Throwable thrown = catchThrowable(() -> locksmith.run(options, () -> {}));
        longest = Math.max(longest, System.nanoTime() - started);
        assertThat(thrown)
            .isInstanceOf(LockProviderException.class)
            .hasMessageStartingWith("Lock '" + options.lockId() + "' not acquired: lock provider")
            .hasMessageContaining("lock provider default (outage:orders) is down since 20")
            .hasMessageContaining(
                ONE_LINE_CAUSE + "; locked calls on it fail fast until it answers")
            .hasMessageNotContaining("script:");
      }
      assertThat(provider.lockCalls).as("calls that reached the provider").hasValue(reached);
      // No call waited for the provider (which would have taken the gate's 10 s); how fast they
      // are is measured in benchmarks/, not here, where a loaded machine may stall any thread.
      assertThat(Duration.ofNanos(longest)).isLessThan(Duration.ofSeconds(5));
      provider.lockGate.get().countDown();
      assertThat(events.events)
          .filteredOn(e -> e.startsWith("error report"))
          .as("each failed acquisition is told to listeners")
          .hasSize(1 + 100);

      ProviderHealth health = locksmith.health().get(0);
      assertThat(health.up()).isFalse();
      assertThat(health.name()).isEqualTo("default");
      assertThat(health.description()).isEqualTo("outage:orders");
      assertThat(health.problem()).isEqualTo(ONE_LINE_CAUSE);
    }
  }

  @Test
  void anyRuntimeExceptionOfTheProviderOpensItButAnArgumentErrorDoesNot() {
    try (Locksmith locksmith = started(NEVER)) {
      provider.failure.set(() -> new IllegalArgumentException("lock id too long"));
      provider.down.set(true);
      for (int i = 0; i < 3; i++) {
        assertThatThrownBy(() -> locksmith.run(tick("a"), () -> {}))
            .isInstanceOf(IllegalArgumentException.class);
      }
      assertThat(provider.lockCalls).as("every call reached the provider").hasValue(3);
      assertThat(locksmith.health().get(0).up()).isTrue();

      provider.failure.set(() -> new IllegalStateException("Redisson is shutdown"));
      assertThatThrownBy(() -> locksmith.run(tick("a"), () -> {}))
          .isInstanceOf(IllegalStateException.class);
      assertThat(locksmith.health().get(0).problem())
          .isEqualTo("IllegalStateException: Redisson is shutdown");
      assertThatThrownBy(() -> locksmith.run(tick("a"), () -> {}))
          .isInstanceOf(LockProviderException.class)
          .hasMessageContaining("is down since");
      assertThat(provider.lockCalls).hasValue(4);
    }
  }

  @Test
  void aProbeClosesTheCircuitOnceTheProviderAnswersAgain() throws Exception {
    try (Locksmith locksmith = started(Duration.ofMillis(50))) {
      provider.down.set(true);
      assertThatThrownBy(() -> locksmith.run(tick("sweep"), () -> {}))
          .isInstanceOf(LockProviderException.class);
      // Probes keep running, and failing, while it is down.
      await().atMost(Duration.ofSeconds(5)).until(() -> provider.statusDone.get() >= 3);
      assertThat(locksmith.health().get(0).up()).isFalse();
      assertThat(provider.lockCalls).hasValue(1);

      provider.down.set(false);
      await().atMost(Duration.ofSeconds(5)).until(() -> locksmith.health().get(0).up());
      assertThat(locksmith.health().get(0).problem()).isNull();
      assertThat(locksmith.run(tick("sweep"), () -> {})).isTrue();
      assertThat(provider.lockCalls).hasValue(2);
      // Up again: no more probes.
      int probes = provider.statusCalls.get();
      CountDownLatch quiet = new CountDownLatch(1);
      assertThat(quiet.await(300, TimeUnit.MILLISECONDS)).isFalse();
      assertThat(provider.statusCalls).hasValue(probes);
    }
  }

  @Test
  void anErrorInAProbeDoesNotEndProbing() throws Exception {
    try (Locksmith locksmith = started(Duration.ofMillis(50))) {
      provider.nextStatusError.set(new LinkageError("class path broken"));
      provider.down.set(true);
      assertThatThrownBy(() -> locksmith.run(tick("sweep"), () -> {}))
          .isInstanceOf(LockProviderException.class);
      // The probe's thread dies of the Error, which is not this test's failure.
      await()
          .dontCatchUncaughtExceptions()
          .atMost(Duration.ofSeconds(5))
          .until(() -> provider.nextStatusError.get() == null);

      provider.down.set(false);
      await()
          .dontCatchUncaughtExceptions()
          .atMost(Duration.ofSeconds(5))
          .until(() -> locksmith.health().get(0).up());
      assertThat(locksmith.run(tick("sweep"), () -> {})).isTrue();
    }
  }

  @Test
  void aCallAnsweredWhileTheCircuitIsOpenClosesIt() throws Exception {
    try (Locksmith locksmith = started(NEVER)) {
      LeaseGrant other =
          store.tryAcquire(LockRequest.of("job", Duration.ofSeconds(30))).orElseThrow();
      CompletableFuture<Lease> waiter =
          CompletableFuture.supplyAsync(
              () ->
                  locksmith.acquire(
                      LockOptions.named("job").withWaitTimeout(Duration.ofSeconds(20))),
              pool);
      await().atMost(Duration.ofSeconds(5)).until(() -> store.status("job").waiters() == 1);

      provider.down.set(true);
      assertThatThrownBy(() -> locksmith.run(tick("other"), () -> {}))
          .isInstanceOf(LockProviderException.class);
      assertThat(locksmith.health().get(0).up()).isFalse();

      // The waiter's call, sent before the outage, is answered with the lock: the provider is back.
      store.release(other);
      try (Lease lease = waiter.get(5, TimeUnit.SECONDS)) {
        assertThat(lease.isValid()).isTrue();
        assertThat(locksmith.health().get(0).up()).isTrue();
        provider.down.set(false);
      }
      assertThat(provider.statusCalls).as("no probe ran").hasValue(1);
    }
  }

  @Test
  void healthTurnsDownSoonAfterStartWhenTheProviderIsDownWithoutAnyLockedCall() {
    provider.down.set(true);
    try (Locksmith locksmith = Locksmith.builder().defaultProvider(provider).build()) {
      await()
          .atMost(Duration.ofSeconds(5))
          .untilAsserted(
              () ->
                  assertThat(locksmith.health())
                      .singleElement()
                      .satisfies(
                          health -> {
                            assertThat(health.up()).isFalse();
                            assertThat(health.problem()).isEqualTo(ONE_LINE_CAUSE);
                          }));
      assertThatThrownBy(() -> locksmith.run(tick("nightly"), () -> {}))
          .isInstanceOf(LockProviderException.class)
          .hasMessageContaining("is down since");
      assertThat(provider.lockCalls).hasValue(0);
    }
  }

  @Test
  void healthNeverWaitsForAProvider() {
    provider.statusGate.set(new CountDownLatch(1)); // the start-up probe hangs
    try (Locksmith locksmith =
        Locksmith.builder()
            .defaultProvider(provider)
            .provider("audit", MemoryLockProvider.isolated())
            .build()) {
      await().atMost(Duration.ofSeconds(5)).until(() -> provider.statusCalls.get() == 1);
      List<ProviderHealth> health = locksmith.health();
      assertThat(provider.statusDone).as("the probe still hangs").hasValue(0);
      assertThat(health)
          .extracting(ProviderHealth::name, ProviderHealth::up)
          .containsExactly(
              org.assertj.core.groups.Tuple.tuple("default", true),
              org.assertj.core.groups.Tuple.tuple("audit", true));
    } finally {
      provider.statusGate.get().countDown();
    }
  }

  @Test
  void aPasswordInADescriptionIsMaskedInLogsAndHealth() {
    OutageProvider careless = new OutageProvider("redis://app:s3cret@cache:6379?token=abc");
    try (ConsoleLog log = new ConsoleLog();
        Locksmith locksmith = Locksmith.builder().defaultProvider(careless).build()) {
      assertThat(locksmith.health().get(0).description())
          .isEqualTo("redis://app:****@cache:6379?token=****");
      assertThat(log.lines("INFO", "Lock provider default: redis://app:****@cache:6379?token=****"))
          .hasSize(1);
      assertThat(log.lines())
          .noneMatch(line -> line.contains("s3cret") || line.contains("token=abc"));
    }
  }

  @Test
  void oneProviderUnderTwoNamesHasOneCircuit() {
    try (Locksmith locksmith =
        Locksmith.builder().defaultProvider(provider).provider("orders", provider).build()) {
      assertThat(locksmith.health())
          .singleElement()
          .extracting(ProviderHealth::name)
          .isEqualTo("default");
    }
  }

  @Test
  void providerNamesAreTheNamesLockEventsGiveEachConfiguredProviderAliasesIncluded()
      throws Exception {
    Set<String> eventProviders = ConcurrentHashMap.newKeySet();
    LockListener listener =
        new LockListener() {
          @Override
          public void acquired(LockEvent event, Duration waited) {
            eventProviders.add(event.provider());
          }
        };
    try (Locksmith locksmith =
        Locksmith.builder()
            .defaultProvider(provider)
            .provider("orders", provider)
            .listener(listener)
            .build()) {
      locksmith.run(LockOptions.named("a"), () -> {});
      locksmith.run(LockOptions.named("b").withProvider("orders"), () -> {});

      assertThat(locksmith.providerNames()).containsExactly("default", "orders");
      assertThat(eventProviders).containsExactlyInAnyOrderElementsOf(locksmith.providerNames());
    }
  }

  @Test
  void providersRequiredAtStartupFailTheBuildNamingEachThatDidNotAnswerAndClosingOwnedOnes() {
    OutageProvider given = new OutageProvider("outage:given");
    given.down.set(true);
    LocksmithSettings settings =
        LocksmithSettings.from(
            Map.of(
                "locksmith.url", "outage:owned?down=true",
                "locksmith.providers.fine.url", "outage:fine",
                "locksmith.require-providers-at-startup", "true"));
    assertThat(settings.requireProvidersAtStartup()).isTrue();
    int before = OutageProviderFactory.CREATED.size();

    assertThatThrownBy(
            () -> Locksmith.builder().provider("given", given).settings(settings).build())
        .isInstanceOf(LockProviderException.class)
        .hasMessageStartingWith(
            "Lock provider default (outage:owned) did not answer at start-up: " + ONE_LINE_CAUSE)
        .hasMessageContaining(
            "; Lock provider given (outage:given) did not answer at start-up: " + ONE_LINE_CAUSE)
        .hasMessageEndingWith(
            "providers are required at start-up (requireProvidersAtStartup,"
                + " locksmith.require-providers-at-startup), so the engine was not built")
        .hasMessageNotContaining("fine")
        .hasMessageNotContaining("script:");

    List<OutageProvider> created =
        OutageProviderFactory.CREATED.subList(before, OutageProviderFactory.CREATED.size());
    assertThat(created).hasSize(2).allSatisfy(p -> assertThat(p.closed).isTrue());
    assertThat(given.closed).as("a provider given to the builder is the caller's").isFalse();
  }

  @Test
  void closingTheEngineClosesEveryOwnedProviderThoughOneFailsToClose() {
    int before = OutageProviderFactory.CREATED.size();
    Locksmith locksmith =
        Locksmith.builder()
            .settings(
                LocksmithSettings.from(
                    Map.of(
                        "locksmith.url", "outage:first?close-fails=true",
                        "locksmith.providers.second.url", "outage:second?close-fails=true",
                        "locksmith.providers.third.url", "outage:third")))
            .build();
    List<OutageProvider> created =
        OutageProviderFactory.CREATED.subList(before, OutageProviderFactory.CREATED.size());
    assertThat(created).hasSize(3);

    locksmith.close();

    assertThat(created).allSatisfy(p -> assertThat(p.closed).as(p.description()).isTrue());
  }

  @Test
  void aDiscardedBuilderClosesTheProvidersItCreatedAndNotTheOnesGiven() {
    OutageProvider given = new OutageProvider("outage:given-to-discarded");
    int before = OutageProviderFactory.CREATED.size();
    LocksmithBuilder builder =
        Locksmith.builder()
            .provider("given", given)
            .settings(
                LocksmithSettings.from(
                    Map.of(
                        "locksmith.url", "outage:made",
                        "locksmith.providers.other.url", "outage:made-too")));

    builder.discard();

    List<OutageProvider> created =
        OutageProviderFactory.CREATED.subList(before, OutageProviderFactory.CREATED.size());
    assertThat(created).hasSize(2).allSatisfy(p -> assertThat(p.closed).isTrue());
    assertThat(given.closed).as("a provider given to the builder is the caller's").isFalse();
  }

  @Test
  void anEngineThatFailsToBuildClosesTheProvidersItsSettingsCreated(@TempDir Path classes)
      throws IOException {
    // A key language registered on the class path whose class is missing: the build fails.
    Path services = classes.resolve("META-INF/services");
    Files.createDirectories(services);
    Files.writeString(
        services.resolve(KeyLanguage.class.getName()), "dev.locksmith.core.NoSuchKeyLanguage\n");
    int before = OutageProviderFactory.CREATED.size();
    Thread thread = Thread.currentThread();
    ClassLoader original = thread.getContextClassLoader();
    try (URLClassLoader broken =
        new URLClassLoader(new URL[] {classes.toUri().toURL()}, original)) {
      thread.setContextClassLoader(broken);
      LocksmithBuilder builder =
          Locksmith.builder()
              .settings(LocksmithSettings.from(Map.of("locksmith.url", "outage:failed-build")));
      assertThatThrownBy(builder::build)
          .isInstanceOf(LockConfigurationException.class)
          .hasMessageContaining("key language");
    } finally {
      thread.setContextClassLoader(original);
    }
    assertThat(OutageProviderFactory.CREATED.subList(before, OutageProviderFactory.CREATED.size()))
        .hasSize(1)
        .allSatisfy(p -> assertThat(p.closed).as("the provider made from settings").isTrue());
  }

  @Test
  void anEngineClosedOnAnInterruptedThreadStillClosesItsProvidersUninterruptedAndKeepsTheFlag() {
    int before = OutageProviderFactory.CREATED.size();
    Locksmith locksmith =
        Locksmith.builder()
            .settings(LocksmithSettings.from(Map.of("locksmith.url", "outage:closed-interrupted")))
            .build();
    OutageProvider owned = OutageProviderFactory.CREATED.get(before);

    Thread.currentThread().interrupt();
    try {
      locksmith.close();
      assertThat(Thread.currentThread().isInterrupted()).as("kept for the caller").isTrue();
    } finally {
      Thread.interrupted();
    }

    assertThat(owned.closed).isTrue();
    assertThat(owned.closedInterrupted)
        .as("a provider's close waits for its calls in flight; an interrupt would cut them")
        .isFalse();
  }

  @Test
  void providersRequiredAtStartupThatAnswerStartUp() {
    try (Locksmith locksmith =
        Locksmith.builder().defaultProvider(provider).requireProvidersAtStartup(true).build()) {
      assertThat(provider.statusDone).as("probed before build returned").hasValue(1);
      assertThat(locksmith.health().get(0).up()).isTrue();
    }
  }

  @Test
  void byDefaultStartUpChecksConfigurationOnly() {
    provider.down.set(true);
    try (Locksmith locksmith = Locksmith.builder().defaultProvider(provider).build()) {
      await().atMost(Duration.ofSeconds(5)).until(() -> !locksmith.health().get(0).up());
    }
  }

  @Test
  void fromSettingsRequiresProvidersAtStartupWhenASystemPropertySaysSo() {
    System.setProperty("locksmith.url", "outage:from-settings?down=true");
    System.setProperty("locksmith.require-providers-at-startup", "true");
    try {
      assertThatThrownBy(Locksmith::fromSettings)
          .isInstanceOf(LockProviderException.class)
          .hasMessageStartingWith(
              "Lock provider default (outage:from-settings) did not answer at start-up: "
                  + ONE_LINE_CAUSE);
    } finally {
      System.clearProperty("locksmith.url");
      System.clearProperty("locksmith.require-providers-at-startup");
    }
  }

  @Test
  void downTimesAreSecondsWithOneDecimal() {
    assertThat(ProviderCircuit.seconds(12_345_678_901L)).isEqualTo("12.3");
    assertThat(ProviderCircuit.seconds(99_999_999L)).isEqualTo("0.0");
    assertThat(ProviderCircuit.seconds(-5)).isEqualTo("0.0");
  }

  @Test
  void theStartUpSettingIsTrueOrFalse() {
    assertThat(LocksmithSettings.from(Map.of()).requireProvidersAtStartup()).isFalse();
    assertThat(
            LocksmithSettings.from(Map.of("locksmith.require-providers-at-startup", " FALSE "))
                .requireProvidersAtStartup())
        .isFalse();
    assertThatThrownBy(
            () -> LocksmithSettings.from(Map.of("locksmith.require-providers-at-startup", "yes")))
        .isInstanceOf(LockConfigurationException.class)
        .hasMessage(
            "Setting locksmith.require-providers-at-startup is 'yes'; expected true or false");
  }

  @Test
  void renewalsFailFastWhileDownAndTheLeaseIsLostAtItsDeadline() throws Exception {
    VirtualTicker ticker = new VirtualTicker();
    OutageProvider scripted = new OutageProvider("outage:scripted", new ScriptedProvider(ticker));
    AtomicInteger renewalsRun = new AtomicInteger();
    try (ConsoleLog log = new ConsoleLog();
        Locksmith locksmith =
            Locksmith.builder()
                .defaultProvider(scripted)
                .ticker(ticker)
                .listener(events)
                .providerProbeInterval(NEVER)
                .renewalExecutor(
                    task ->
                        pool.execute(
                            () -> {
                              task.run();
                              renewalsRun.incrementAndGet();
                            }))
                .build()) {
      await().atMost(Duration.ofSeconds(5)).until(() -> scripted.statusDone.get() == 1);
      Lease lease = locksmith.acquire(LockOptions.named("held").withTtl(Duration.ofSeconds(3)));
      scripted.down.set(true);
      assertThatThrownBy(() -> locksmith.run(tick("other"), () -> {}))
          .isInstanceOf(LockProviderException.class);

      ticker.advance(Duration.ofMillis(1100)); // the renewal is due
      await().atMost(Duration.ofSeconds(5)).until(() -> renewalsRun.get() >= 1);
      assertThat(scripted.renewCalls).as("renewals failed fast").hasValue(0);
      assertThat(lease.isValid()).isTrue();

      ticker.advance(Duration.ofMillis(1900)); // the deadline
      await().atMost(Duration.ofSeconds(5)).until(() -> events.events.contains("lost held"));
      assertThatThrownBy(lease::checkValid)
          .isInstanceOf(LockLostException.class)
          .hasMessageContaining("its deadline passed without a confirmed renewal");
      assertThat(scripted.renewCalls).hasValue(0);
      assertThat(log.lines("WARN", "Lease on lock 'held' lost")).hasSize(1);
      lease.close();
    }
  }

  @Test
  void aReleaseWhileTheProviderIsDownIsLeftToTheTtlNotRunOnTheCallersThread() {
    try (Locksmith locksmith = started(NEVER)) {
      Lease lease = locksmith.acquire(LockOptions.named("export").withTtl(Duration.ofSeconds(30)));
      provider.down.set(true);
      assertThatThrownBy(() -> locksmith.run(tick("other"), () -> {}))
          .isInstanceOf(LockProviderException.class);

      lease.close();
      assertThat(provider.releaseCalls).hasValue(0);
      assertThat(events.events).contains("released export");
      assertThat(store.status("export").currentHolder())
          .as("held on the store until its ttl")
          .isPresent();
    }
  }

  @Test
  void eachChangeOfStateIsOneLogLineWithAOneLineCauseAndNoStackTrace() throws Exception {
    try (ConsoleLog log = new ConsoleLog()) {
      try (Locksmith locksmith = started(Duration.ofMillis(50))) {
        Lease held = locksmith.acquire(LockOptions.named("held").withTtl(Duration.ofSeconds(30)));
        provider.down.set(true);
        for (int i = 0; i < 20; i++) {
          assertThatThrownBy(() -> locksmith.run(tick("tick"), () -> {}))
              .isInstanceOf(LockProviderException.class);
        }
        held.close();
        await().atMost(Duration.ofSeconds(5)).until(() -> provider.statusCalls.get() >= 4);
        provider.down.set(false);
        await().atMost(Duration.ofSeconds(5)).until(() -> locksmith.health().get(0).up());
        provider.down.set(true);
        assertThatThrownBy(() -> locksmith.run(tick("tick"), () -> {}))
            .isInstanceOf(LockProviderException.class);
        await().atMost(Duration.ofSeconds(5)).until(() -> provider.statusCalls.get() >= 8);
      }

      assertThat(log.lines("INFO", "Lock provider default: outage:orders")).hasSize(1);
      assertThat(log.lines("WARN", "Lock provider default"))
          .hasSize(2)
          .allSatisfy(
              line ->
                  assertThat(line)
                      .endsWith(
                          " WARN dev.locksmith.core.ProviderCircuit - Lock provider default"
                              + " (outage:orders) is down: "
                              + ONE_LINE_CAUSE
                              + "; locked calls on it fail fast until it answers"));
      assertThat(log.lines("INFO", "Lock provider default is back after"))
          .singleElement()
          .satisfies(line -> assertThat(line).matches(".* is back after \\d+\\.\\d s"));
      assertThat(log.lines())
          .as("no stack trace, no second line of a cause")
          .noneMatch(line -> line.startsWith("\tat ") || line.startsWith("Caused by"))
          .noneMatch(line -> line.contains("script:") || line.contains("buffer:"));
      assertThat(log.lines("ERROR", "")).isEmpty();
    }
  }

  @Test
  void aListenerThatThrowsIsLoggedInOneLine() {
    try (ConsoleLog log = new ConsoleLog();
        Locksmith locksmith =
            Locksmith.builder()
                .defaultProvider(provider)
                .listener(
                    new LockListener() {
                      @Override
                      public void acquired(LockEvent event, Duration waited) {
                        throw new IllegalStateException("metrics registry closed\nat line two");
                      }

                      @Override
                      public String toString() {
                        return "metrics";
                      }
                    })
                .build()) {
      locksmith.tryAcquire(LockOptions.named("x")).orElseThrow().close();
      assertThat(log.lines("WARN", "Lock listener"))
          .singleElement()
          .satisfies(
              line ->
                  assertThat(line)
                      .endsWith(
                          "Lock listener metrics failed: IllegalStateException: metrics registry"
                              + " closed"));
      assertThat(log.lines())
          .noneMatch(line -> line.startsWith("\tat ") || line.contains("line two"));
    }
  }
}
