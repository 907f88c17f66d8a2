package dev.locksmith.core;

import dev.locksmith.annotation.DistributedLock;
import dev.locksmith.annotation.OnBusy;
import dev.locksmith.core.spi.LeaseGrant;
import dev.locksmith.core.spi.LockProvider;
import dev.locksmith.core.spi.LockRequest;
import dev.locksmith.core.spi.OwnerTokens;
import java.lang.reflect.Method;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.UnaryOperator;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.expression.spel.support.StandardEvaluationContext;

/**
 * The engine: runs annotated calls and programmatic blocks under leases. The one place where busy
 * handling, keys, reentrancy, renewal, lost-lease detection and release live; integrations turn an
 * intercepted call into one {@link #invoke} call.
 *
 * <pre>{@code
 * Locksmith locksmith = Locksmith.builder().defaultProvider(LockProviders.create("tcp://lockhost:7420")).build();
 * try (Lease lease = locksmith.acquire(LockOptions.named("report").withKey("2026-11"))) {
 *   write(lease.fencingToken());
 * }
 * }</pre>
 *
 * <p>A nested call on the same lock id and provider on the same thread does not acquire again: it
 * runs under the outer lease and sees the same fencing token. Thread-safe; close it to stop renewal
 * and close the providers it created from URLs.
 */
public final class Locksmith implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(Locksmith.class);
  private final Providers providers;
  private final List<LockProvider> ownedProviders;
  private final Listeners listeners;
  private final Ticker ticker;
  private final LeaseKeeper keeper;
  private final MethodSpecs specs;
  private final ReleaseDeferral releaseDeferral;
  private final List<AutoCloseable> lossRegistrations = new ArrayList<>();
  private final AtomicBoolean closed = new AtomicBoolean();
  private final Duration shutdownTimeout;
  private final Instant startedAt = Instant.now();
  // One outage circuit per distinct provider (by identity), the default provider's first.
  private final Map<LockProvider, ProviderCircuit> circuits;
  private final List<ProviderCircuit> circuitList;

  private Locksmith(Builder builder) {
    this.providers = new Providers(builder.providers);
    this.ownedProviders = List.copyOf(builder.ownedProviders);
    this.listeners = new Listeners(builder.listeners);
    this.releaseDeferral = builder.releaseDeferral;
    this.ticker = builder.ticker;
    this.shutdownTimeout = builder.shutdownTimeout;
    this.keeper = new LeaseKeeper(ticker, builder.renewalExecutor);
    Map<LockProvider, ProviderCircuit> byProvider = new IdentityHashMap<>();
    List<ProviderCircuit> ordered = new ArrayList<>();
    builder.providers.entrySet().stream()
        .sorted(Map.Entry.comparingByKey())
        .forEach(
            entry -> {
              if (!byProvider.containsKey(entry.getValue())) {
                ProviderCircuit circuit =
                    new ProviderCircuit(
                        Providers.display(entry.getKey()),
                        entry.getValue(),
                        ticker,
                        keeper::runAfter,
                        builder.probeInterval,
                        startedAt);
                byProvider.put(entry.getValue(), circuit);
                ordered.add(circuit);
              }
            });
    this.circuits = Collections.unmodifiableMap(byProvider);
    this.circuitList = List.copyOf(ordered);
    for (ProviderCircuit circuit : circuitList) {
      LOG.info("Lock provider {}: {}", circuit.name(), circuit.description());
      lossRegistrations.add(circuit.provider().onLeaseLost(keeper::lost));
    }
    this.specs =
        new MethodSpecs(
            providers,
            builder.attributeResolver,
            builder.parameterNames,
            builder.contextCustomizer);
  }

  /** A builder with no providers. */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * An engine configured from {@code locksmith.url} and {@code locksmith.providers.<name>.url} in
   * system properties, environment variables or {@code locksmith.properties} on the class path.
   */
  public static Locksmith fromSettings() {
    return builder().settings(LocksmithSettings.load()).build();
  }

  /**
   * Runs an intercepted call of an annotated method under its lock, applying the method's busy
   * policy. A {@code CompletionStage} result holds the lock until it completes.
   *
   * @return the method's result, or for a skipped call {@code null}, {@code Optional.empty()} or a
   *     completed stage
   * @throws LockBusyException when busy under FAIL
   * @throws LockTimeoutException when WAIT ran out
   * @throws Throwable whatever the method throws, unchanged
   */
  public @Nullable Object invoke(LockedInvocation invocation) throws Throwable {
    MethodSpec spec = specs.get(invocation.method());
    if (spec.returnKind() == ReturnKind.PUBLISHER) {
      throw new LockConfigurationException(
          MethodSpecs.describe(spec.method())
              + ": returns a reactive "
              + spec.method().getReturnType().getSimpleName()
              + ", which runs after the method returns, so this integration would release the"
              + " lock before the work; use the Spring proxy mode or the Micronaut integration"
              + " (they hold the lock until the publisher terminates), or return a"
              + " CompletionStage");
    }
    LockOptions options = optionsFor(spec, invocation);
    LockProvider provider = spec.provider().provider();
    ActiveLease reentered = HeldLeases.find(provider, options.lockId());
    if (reentered != null) {
      return proceedHeld(reentered, invocation, spec);
    }
    ActiveLease lease = obtain(options, spec.provider().name(), provider, true);
    if (lease == null) {
      return spec.returnKind().skipped();
    }
    boolean releaseNow = true;
    HeldLeases.push(lease);
    try {
      Object result = invocation.proceed();
      if (spec.returnKind() == ReturnKind.STAGE && result != null) {
        releaseNow = false;
        return holdUntilComplete((CompletionStage<?>) result, lease::close, spec.method());
      }
      return result;
    } finally {
      HeldLeases.pop(lease);
      if (releaseNow) {
        release(lease);
      }
    }
  }

  private static LockOptions optionsFor(MethodSpec spec, LockedInvocation invocation) {
    KeyExpression key = spec.key();
    if (key == null) {
      return spec.options();
    }
    return spec.options()
        .withKey(
            key.evaluate(invocation.method(), invocation.arguments(), invocation.targetClass()));
  }

  /**
   * Resolves an intercepted call's lock without taking it, for results that run later such as
   * reactive publishers; see {@link PreparedCall}.
   */
  public PreparedCall prepare(LockedInvocation invocation) {
    MethodSpec spec = specs.get(invocation.method());
    return new PreparedCall(this, optionsFor(spec, invocation), spec);
  }

  @Nullable ActiveLease obtainFor(MethodSpec spec, LockOptions options) {
    return obtain(options, spec.provider().name(), spec.provider().provider(), true);
  }

  /** Releases an annotated call's lease now, or later when the release deferral takes it. */
  void release(ActiveLease lease) {
    boolean deferred;
    try {
      deferred = releaseDeferral.deferRelease(lease, lease::close);
    } catch (RuntimeException e) {
      listeners.error(lease.event(), e);
      deferred = false;
    }
    if (deferred) {
      HeldLeases.deferred(lease);
    } else {
      lease.close();
    }
  }

  private static Object holdUntilComplete(
      CompletionStage<?> stage, Runnable release, Method method) {
    Class<?> declared = method.getReturnType();
    // Released when the stage completes, on the completing thread: never deferred to a transaction
    // that thread may happen to run.
    CompletionStage<?> released = stage.whenComplete((value, error) -> release.run());
    if (declared == CompletionStage.class || declared == CompletableFuture.class) {
      return released;
    }
    return stage;
  }

  /**
   * Checks the {@code @DistributedLock} of every method of a class now (durations, key expressions,
   * providers, busy policy), so that a mistake fails at start-up rather than on the first call.
   *
   * @return how many annotated methods were checked
   * @throws LockConfigurationException naming the class, method and attribute of the first mistake
   */
  public int validate(Class<?> type) {
    int count = 0;
    for (Class<?> c = type; c != null && c != Object.class; c = c.getSuperclass()) {
      for (Method method : c.getDeclaredMethods()) {
        if (!method.isSynthetic() && !method.isBridge() && isAnnotated(method)) {
          specs.get(method);
          count++;
        }
      }
    }
    return count;
  }

  /** Checks the {@code @DistributedLock} of one method now; see {@link #validate(Class)}. */
  public void validate(Method method) {
    specs.get(method);
  }

  /** Whether a method carries {@code @DistributedLock}, directly or through a meta-annotation. */
  public static boolean isAnnotated(Method method) {
    return MethodSpecs.find(method) != null;
  }

  /** Returns the annotation that governs a method, if any. */
  public static Optional<DistributedLock> annotationOf(Method method) {
    return Optional.ofNullable(MethodSpecs.find(method));
  }

  /**
   * Takes a lock now if it is free, never waiting.
   *
   * @return the lease, or empty when another owner holds the lock
   */
  public Optional<Lease> tryAcquire(LockOptions options) {
    return Optional.ofNullable(acquireLease(options.withOnBusy(OnBusy.SKIP)));
  }

  // Explicit leases join the thread's held leases so that nested calls reenter them and
  // Locks.current() sees them; closing removes them (leases closed on another thread are purged).

  /**
   * Takes a lock, waiting as the options say. Close the lease to release it.
   *
   * @throws LockBusyException when busy and the policy is FAIL or SKIP
   * @throws LockTimeoutException when WAIT ran out
   */
  public Lease acquire(LockOptions options) {
    Lease lease =
        acquireLease(options.onBusy() == OnBusy.SKIP ? options.withOnBusy(OnBusy.FAIL) : options);
    return Objects.requireNonNull(lease);
  }

  private @Nullable Lease acquireLease(LockOptions options) {
    LockProvider provider = provider(options);
    ActiveLease reentered = HeldLeases.find(provider, options.lockId());
    if (reentered != null) {
      return new ReenteredLease(reentered);
    }
    ActiveLease lease = obtain(options, Providers.display(options.provider()), provider, false);
    if (lease != null) {
      HeldLeases.push(lease);
    }
    return lease;
  }

  /**
   * Runs a block under a lock.
   *
   * @return {@code true} if it ran, {@code false} if it was skipped under SKIP
   */
  public boolean run(LockOptions options, ThrowingRunnable block) throws Exception {
    Object ran =
        call(
            options,
            () -> {
              block.run();
              return Boolean.TRUE;
            });
    return ran != null;
  }

  /**
   * Calls a block under a lock.
   *
   * @return the block's value, or {@code null} when skipped under SKIP
   */
  public <T> @Nullable T call(LockOptions options, Callable<T> block) throws Exception {
    LockProvider provider = provider(options);
    ActiveLease reentered = HeldLeases.find(provider, options.lockId());
    if (reentered != null) {
      return runHeld(reentered, block);
    }
    ActiveLease lease = obtain(options, Providers.display(options.provider()), provider, true);
    if (lease == null) {
      return null;
    }
    try (lease) {
      return runHeld(lease, block);
    }
  }

  private static <T> T runHeld(ActiveLease lease, Callable<T> block) throws Exception {
    HeldLeases.push(lease);
    try {
      return block.call();
    } finally {
      HeldLeases.pop(lease);
    }
  }

  /**
   * Runs a reentered call under the lease its thread already holds. A {@code CompletionStage} it
   * returns holds the lease too, so the lock outlives the outer call until the stage completes.
   */
  private static @Nullable Object proceedHeld(
      ActiveLease lease, LockedInvocation invocation, MethodSpec spec) throws Throwable {
    HeldLeases.push(lease);
    try {
      Object result = invocation.proceed();
      if (spec.returnKind() == ReturnKind.STAGE && result != null) {
        return holdUntilComplete((CompletionStage<?>) result, lease.retain(), spec.method());
      }
      return result;
    } finally {
      HeldLeases.pop(lease);
    }
  }

  private LockProvider provider(LockOptions options) {
    LockProvider provider = providers.get(options.provider());
    if (provider == null) {
      providers.resolve(options.provider(), "Lock '" + options.lockId() + "'");
    }
    return Objects.requireNonNull(provider);
  }

  /**
   * Takes the lock under the options' busy policy; {@code null} means skipped. A grant that arrives
   * with less than half its TTL left is renewed before it is used ({@link LateGrants}); when that
   * fails, WAIT goes on waiting within its timeout, and otherwise the call fails.
   */
  private @Nullable ActiveLease obtain(
      LockOptions options, String providerName, LockProvider provider, boolean call) {
    if (closed.get()) {
      throw new IllegalStateException("This Locksmith is closed; it takes no more locks");
    }
    ProviderCircuit circuit = Objects.requireNonNull(circuits.get(provider));
    String lockId = options.lockId();
    LockEvent attempt = new LockEvent(options.name(), lockId, providerName, 0);
    boolean wait = options.onBusy() == OnBusy.WAIT;
    long start = ticker.read();
    long waitNanos = options.waitTimeout().toNanos();
    // Every provider call on the caller's thread starts before a WAIT's deadline, one at a time,
    // so a WAIT ends no later than its timeout plus the one call in flight at the deadline.
    for (int attempts = 0; ; attempts++) {
      long remaining = waitNanos - (ticker.read() - start);
      if (wait && attempts > 0 && remaining <= 0) {
        throw timedOut(attempt, start);
      }
      LockRequest request =
          new LockRequest(
              lockId, OwnerTokens.newToken(), options.ttl(), OwnerTokens.describeCaller());
      Optional<LeaseGrant> grant;
      try {
        grant =
            wait
                ? circuit.call(
                    () -> provider.acquire(request, Duration.ofNanos(Math.max(0, remaining))),
                    lockId,
                    ProviderCircuit.ACQUIRED)
                : circuit.call(
                    () -> provider.tryAcquire(request), lockId, ProviderCircuit.ACQUIRED);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new LockException("Interrupted while waiting for lock '" + lockId + "'", e);
      } catch (RuntimeException e) {
        listeners.error(attempt, e);
        throw e;
      }
      if (grant.isPresent()) {
        boolean inTime = !wait || ticker.read() - start < waitNanos;
        StringBuilder refusal = new StringBuilder();
        Optional<LeaseGrant> usable =
            LateGrants.usable(grant.get(), circuit, ticker, inTime, refusal);
        long acquiredAt = ticker.read();
        if (usable.isPresent()) {
          ActiveLease lease =
              new ActiveLease(
                  options,
                  providerName,
                  circuit,
                  listeners,
                  ticker,
                  usable.get(),
                  acquiredAt,
                  call);
          lease.keepWith(keeper);
          listeners.acquired(lease.event(), Duration.ofNanos(acquiredAt - start));
          return lease;
        }
        LeaseGrant unused = grant.get();
        if (wait && acquiredAt - start < waitNanos) {
          LateGrants.release(unused, circuit); // before asking again, within the wait
          continue;
        }
        // The caller gets its answer without waiting for one more provider call.
        keeper.runAfter(Duration.ZERO, () -> LateGrants.release(unused, circuit));
        if (!inTime) {
          throw timedOut(attempt, start);
        }
        LockProviderException error = LateGrants.refused(lockId, refusal);
        listeners.error(attempt, error);
        throw error;
      }
      switch (options.onBusy()) {
        case SKIP -> {
          listeners.busy(attempt);
          return null;
        }
        case FAIL -> {
          listeners.busy(attempt);
          throw new LockBusyException(lockId);
        }
        default -> {
          throw timedOut(attempt, start);
        }
      }
    }
  }

  /** Tells listeners that a WAIT ran out, and returns the exception to throw. */
  private LockTimeoutException timedOut(LockEvent attempt, long start) {
    Duration waited = Duration.ofNanos(ticker.read() - start);
    listeners.timedOut(attempt, waited);
    return new LockTimeoutException(attempt.lockId(), waited);
  }

  /** The configured providers by name; the default provider's name is the empty string. */
  public Map<String, LockProvider> providers() {
    return providers.all();
  }

  /**
   * The health of each distinct provider, the default first (named {@code default}), as last seen
   * by calls and background probes: down from a call that failed for want of the provider until a
   * probe or a call is answered. Never blocks on a provider.
   */
  public List<ProviderHealth> health() {
    List<ProviderHealth> health = new ArrayList<>(circuitList.size());
    for (ProviderCircuit circuit : circuitList) {
      health.add(circuit.health());
    }
    return health;
  }

  /** Probes every provider once in the background, so health turns down soon after start. */
  private void probeProviders() {
    for (ProviderCircuit circuit : circuitList) {
      circuit.probeAfter(Duration.ZERO);
    }
  }

  /**
   * Probes every provider now, in parallel, and fails naming each that did not answer.
   *
   * @throws LockProviderException naming each provider that did not answer and why
   */
  private void requireProviders() {
    Map<ProviderCircuit, CompletableFuture<@Nullable RuntimeException>> checks =
        new LinkedHashMap<>();
    for (ProviderCircuit circuit : circuitList) {
      checks.put(
          circuit,
          CompletableFuture.supplyAsync(
              circuit::check, task -> keeper.runAfter(Duration.ZERO, task)));
    }
    StringBuilder message = new StringBuilder();
    RuntimeException first = null;
    List<RuntimeException> others = new ArrayList<>();
    for (Map.Entry<ProviderCircuit, CompletableFuture<@Nullable RuntimeException>> check :
        checks.entrySet()) {
      RuntimeException failure;
      try {
        failure = check.getValue().join();
      } catch (RuntimeException e) {
        failure = e;
      }
      if (failure == null) {
        continue;
      }
      ProviderCircuit circuit = check.getKey();
      message
          .append(message.length() == 0 ? "" : "; ")
          .append("Lock provider ")
          .append(circuit.name())
          .append(" (")
          .append(circuit.description())
          .append(") did not answer at start-up: ")
          .append(Causes.oneLine(failure));
      if (first == null) {
        first = failure;
      } else {
        others.add(failure);
      }
    }
    if (first != null) {
      LockProviderException error =
          new LockProviderException(
              message
                  + "; providers are required at start-up (requireProvidersAtStartup,"
                  + " locksmith.require-providers-at-startup), so the engine was not built",
              first);
      others.forEach(error::addSuppressed);
      throw error;
    }
  }

  /**
   * Shuts the engine down gracefully: takes no more locks, waits up to the shutdown timeout ({@link
   * Builder#shutdownTimeout}) for the locked calls still running to end, each lease released as its
   * call ends (a minimum hold kept), then stops renewing and closes the providers this engine
   * created from URLs. Leases still held after the timeout are left to end by their TTL.
   */
  @Override
  public void close() {
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    try {
      int running = keeper.runningCalls();
      if (running > 0) {
        LOG.info(
            "Waiting up to {} for {} locked call(s) to end before closing",
            Durations.format(shutdownTimeout),
            running);
        if (!keeper.awaitNoRunningCalls(shutdownTimeout)) {
          LOG.warn(
              "{} locked call(s) still running after {}; their leases end by their ttl",
              keeper.runningCalls(),
              Durations.format(shutdownTimeout));
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    for (AutoCloseable registration : lossRegistrations) {
      try {
        registration.close();
      } catch (Exception e) {
        // Nothing to do: the provider is going away too.
      }
    }
    for (ProviderCircuit circuit : circuitList) {
      circuit.stop();
    }
    keeper.close();
    for (LockProvider provider : ownedProviders) {
      provider.close();
    }
  }

  /** A block of code that may throw. */
  @FunctionalInterface
  public interface ThrowingRunnable {
    /** Runs the block. */
    void run() throws Exception;
  }

  /** Configures a {@link Locksmith}. */
  public static final class Builder {
    private final Map<String, LockProvider> providers = new LinkedHashMap<>();
    private final List<LockProvider> ownedProviders = new ArrayList<>();
    private final List<LockListener> listeners = new ArrayList<>();
    private UnaryOperator<String> attributeResolver = UnaryOperator.identity();
    private Function<Method, String @Nullable []> parameterNames = method -> null;
    private Consumer<StandardEvaluationContext> contextCustomizer = context -> {};
    private ReleaseDeferral releaseDeferral = ReleaseDeferral.NONE;
    private Ticker ticker = Ticker.system();
    private @Nullable Executor renewalExecutor;
    private Duration shutdownTimeout = Duration.ofSeconds(10);
    private Duration probeInterval = Duration.ofSeconds(1);
    private boolean requireProvidersAtStartup;

    private Builder() {}

    /** The provider used when an annotation or options name none. */
    public Builder defaultProvider(LockProvider provider) {
      providers.put(Providers.DEFAULT, Objects.requireNonNull(provider));
      return this;
    }

    /** A provider that {@code @DistributedLock(provider = name)} selects. */
    public Builder provider(String name, LockProvider provider) {
      if (name.isEmpty()) {
        throw new IllegalArgumentException("provider name is empty; use defaultProvider");
      }
      providers.put(name, Objects.requireNonNull(provider));
      return this;
    }

    /**
     * Creates providers from settings' URLs; the engine closes them when it is closed. A provider
     * already given by name is kept. When the settings require providers at start-up, so does this
     * builder ({@link #requireProvidersAtStartup}).
     */
    public Builder settings(LocksmithSettings settings) {
      if (settings.requireProvidersAtStartup()) {
        requireProvidersAtStartup = true;
      }
      int before = ownedProviders.size();
      try {
        String url = settings.defaultUrl();
        if (url != null && !providers.containsKey(Providers.DEFAULT)) {
          LockProvider provider = LockProviders.create(url);
          ownedProviders.add(provider);
          providers.put(Providers.DEFAULT, provider);
        }
        for (Map.Entry<String, String> named : settings.providerUrls().entrySet()) {
          if (!providers.containsKey(named.getKey())) {
            LockProvider provider = LockProviders.create(named.getValue());
            ownedProviders.add(provider);
            providers.put(named.getKey(), provider);
          }
        }
      } catch (RuntimeException e) {
        // One bad URL: close what this call created, so a retry leaks nothing.
        while (ownedProviders.size() > before) {
          LockProvider created = ownedProviders.remove(ownedProviders.size() - 1);
          providers.values().removeIf(p -> p == created);
          created.close();
        }
        throw e;
      }
      return this;
    }

    /** A listener told of every acquisition, release, loss and error. */
    public Builder listener(LockListener listener) {
      listeners.add(Objects.requireNonNull(listener));
      return this;
    }

    /**
     * Resolves every string attribute of the annotation before it is parsed, such as Spring's
     * {@code ${...}} placeholders. It may throw {@link IllegalArgumentException} with a reason.
     */
    public Builder attributeResolver(UnaryOperator<String> resolver) {
      this.attributeResolver = Objects.requireNonNull(resolver);
      return this;
    }

    /**
     * Supplies parameter names where reflection cannot, such as Micronaut's compile-time metadata.
     * The function returns {@code null} to fall back to reflection.
     */
    public Builder parameterNames(Function<Method, String @Nullable []> names) {
      this.parameterNames = Objects.requireNonNull(names);
      return this;
    }

    /** Adjusts each key's evaluation context, for example to add a bean resolver. */
    public Builder evaluationContext(Consumer<StandardEvaluationContext> customizer) {
      this.contextCustomizer = Objects.requireNonNull(customizer);
      return this;
    }

    /**
     * Lets an annotated method's release wait, for example until the transaction it joined
     * completes. Programmatic leases are released when closed.
     */
    public Builder releaseDeferral(ReleaseDeferral deferral) {
      this.releaseDeferral = Objects.requireNonNull(deferral);
      return this;
    }

    /**
     * The time source for every lease-timing rule; it must run on the {@link System#nanoTime()}
     * clock the providers' deadlines use, at any speed. Default: {@link Ticker#system()}. For tests
     * on virtual time.
     */
    public Builder ticker(Ticker ticker) {
      this.ticker = Objects.requireNonNull(ticker);
      return this;
    }

    /**
     * Runs lease renewals (provider calls that may block) on this executor; the engine does not
     * shut it down. Default: a pool of daemon threads of its own, at most one renewal in flight per
     * lease. The lease deadlines are watched by the engine's sweeper whatever this executor does.
     */
    public Builder renewalExecutor(Executor executor) {
      this.renewalExecutor = Objects.requireNonNull(executor);
      return this;
    }

    /** How long {@link Locksmith#close()} waits for locked calls still running. Default: 10 s. */
    public Builder shutdownTimeout(Duration timeout) {
      this.shutdownTimeout = Durations.check(timeout, "shutdownTimeout");
      return this;
    }

    /**
     * Whether {@link #build()} probes every provider and fails with {@link LockProviderException}
     * when one does not answer. Default {@code false}: start-up checks configuration only, an
     * unreachable provider starts down and locked calls on it fail fast until it answers.
     */
    public Builder requireProvidersAtStartup(boolean require) {
      this.requireProvidersAtStartup = require;
      return this;
    }

    /**
     * How often a provider that is down is probed in the background ({@code status} of one lock, at
     * most one probe in flight per provider); its first answer brings it back. Default: 1 s.
     */
    public Builder providerProbeInterval(Duration interval) {
      Durations.check(interval, "providerProbeInterval");
      if (interval.isZero()) {
        throw new IllegalArgumentException("providerProbeInterval must be positive, was 0s");
      }
      this.probeInterval = interval;
      return this;
    }

    /**
     * Builds the engine. Each provider is probed once in the background, so {@link
     * Locksmith#health()} turns down soon after start when one is unreachable; with {@link
     * #requireProvidersAtStartup(boolean) requireProvidersAtStartup(true)} every provider is probed
     * now instead.
     *
     * @throws LockProviderException with providers required at start-up, naming each provider that
     *     did not answer and why; the providers this builder created are closed then
     */
    public Locksmith build() {
      Locksmith engine = new Locksmith(this);
      if (!requireProvidersAtStartup) {
        engine.probeProviders();
        return engine;
      }
      try {
        engine.requireProviders();
      } catch (RuntimeException e) {
        engine.close();
        throw e;
      }
      return engine;
    }
  }
}
