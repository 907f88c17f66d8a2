package dev.locksmith.core;

import dev.locksmith.annotation.OnBusy;
import dev.locksmith.core.internal.AnnotatedMethods;
import dev.locksmith.core.internal.KeyLanguage;
import dev.locksmith.core.internal.LockedInvocation;
import dev.locksmith.core.internal.PreparedCall;
import dev.locksmith.core.internal.ReleaseDeferral;
import dev.locksmith.core.spi.LockProvider;
import java.lang.reflect.Method;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.SortedSet;
import java.util.concurrent.Callable;
import java.util.concurrent.Executor;
import java.util.function.Function;
import java.util.function.UnaryOperator;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The engine: runs annotated calls and programmatic blocks under leases. Busy handling, keys,
 * reentrancy, renewal, lost-lease detection and release live in this engine, once; integrations
 * turn an intercepted call into one {@link #invoke} call (or {@link #prepare} for results that run
 * later).
 *
 * <pre>{@code
 * Locksmith locksmith = Locksmith.builder().defaultProvider(LockProviders.create("tcp://lockhost:7420")).build();
 * try (Lease lease = locksmith.acquire(LockOptions.named("report").withKey("2026-11"))) {
 *   write(lease.fencingToken());
 * }
 * }</pre>
 *
 * <p>A nested call on the same lock id and provider on the same thread does not acquire again: it
 * runs under the outer lease and sees the same fencing token; over several keys ({@link
 * LockOptions#withKeys}), per key. Thread-safe; close it to stop renewal and close the providers it
 * created from URLs.
 */
public final class Locksmith implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(Locksmith.class);
  private final ConfiguredProviders providers;
  private final LeaseKeeper keeper;
  private final MethodSpecs specs;
  private final ProviderCircuits circuits;
  private final LeaseAcquirer acquirer;
  private final LockedCalls lockedCalls;
  private final ProgrammaticCalls programmatic;
  private final Listeners listeners;
  private final EngineShutdown shutdown;

  private Locksmith(Builder builder) {
    this.providers = new ConfiguredProviders(builder.providers);
    this.listeners = new Listeners(builder.listeners);
    this.keeper = new LeaseKeeper(builder.ticker, builder.renewalExecutor);
    this.circuits =
        new ProviderCircuits(
            builder.providers, builder.ticker, keeper, builder.probeInterval, Instant.now());
    this.acquirer = new LeaseAcquirer(circuits, listeners, builder.ticker, keeper);
    this.specs =
        new MethodSpecs(
            providers,
            builder.attributeResolver,
            builder.parameterNames,
            builder.keyLanguage != null ? builder.keyLanguage : KeyLanguages.discover());
    this.lockedCalls = new LockedCalls(specs, acquirer, listeners, builder.releaseDeferral);
    this.programmatic = new ProgrammaticCalls(providers, acquirer);
    this.shutdown =
        new EngineShutdown(
            acquirer, keeper, circuits, builder.shutdownTimeout, builder.ownedProviders);
  }

  /**
   * A builder with no providers.
   *
   * @return a builder with no providers
   */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * An engine configured from {@code locksmith.url} and {@code locksmith.providers.<name>.url} in
   * system properties, environment variables or {@code locksmith.properties} on the class path.
   *
   * @return an engine configured from {@code locksmith.url} and {@code
   *     locksmith.providers.<name>.url} in system properties, environment variables or {@code
   *     locksmith.properties} on the class path
   */
  public static Locksmith fromSettings() {
    return builder().settings(LocksmithSettings.load()).build();
  }

  /**
   * Runs an intercepted call of an annotated method under its lock, applying the method's busy
   * policy. A {@code CompletionStage} result holds the lock until it completes.
   *
   * @param invocation the intercepted call
   * @return the method's result, or for a skipped call {@code null}, {@code Optional.empty()} or a
   *     completed stage
   * @throws LockBusyException when busy under FAIL
   * @throws LockTimeoutException when WAIT ran out
   * @throws Throwable whatever the method throws, unchanged
   */
  public @Nullable Object invoke(LockedInvocation invocation) throws Throwable {
    return lockedCalls.invoke(invocation);
  }

  /**
   * Resolves an intercepted call's lock without taking it, for results that run later such as
   * reactive publishers; see {@link PreparedCall}.
   *
   * @param invocation the intercepted call
   * @return the call with its lock resolved
   */
  public PreparedCall prepare(LockedInvocation invocation) {
    return lockedCalls.prepare(invocation);
  }

  /**
   * Checks the {@code @DistributedLock} of every method of a class now (durations, key expressions,
   * providers, busy policy), so that a mistake fails at start-up rather than on the first call.
   *
   * @param type the class
   * @return how many annotated methods were checked
   * @throws LockConfigurationException naming the class, method and attribute of the first mistake
   */
  public int validate(Class<?> type) {
    List<Method> methods = AnnotatedMethods.of(type);
    methods.forEach(specs::get);
    return methods.size();
  }

  /**
   * Checks the {@code @DistributedLock} of one method now; see {@link #validate(Class)}.
   *
   * @param method the method
   */
  public void validate(Method method) {
    specs.get(method);
  }

  /**
   * Takes a lock now if it is free, never waiting. With several keys, every key's lock or none.
   *
   * @param options the lock and its settings
   * @return the lease, or empty when another owner holds the lock (any of the keys)
   */
  public Optional<Lease> tryAcquire(LockOptions options) {
    return Optional.ofNullable(programmatic.acquire(options.withOnBusy(OnBusy.SKIP)));
  }

  /**
   * Takes a lock, waiting as the options say. Close the lease to release it. With several keys
   * ({@link LockOptions#withKeys}), takes every key's lock in lock order, all or nothing, within
   * one wait timeout; {@link Lease#leases()} gives each key's lease.
   *
   * @param options the lock and its settings
   * @return the lease; close it to release the lock
   * @throws LockBusyException when busy and the policy is FAIL or SKIP
   * @throws LockTimeoutException when WAIT ran out
   */
  public Lease acquire(LockOptions options) {
    Lease lease =
        programmatic.acquire(
            options.onBusy() == OnBusy.SKIP ? options.withOnBusy(OnBusy.FAIL) : options);
    return Objects.requireNonNull(lease);
  }

  /**
   * Runs a block under a lock.
   *
   * @param options the lock and its settings
   * @param block the work to do under the lock
   * @return {@code true} if it ran, {@code false} if it was skipped under SKIP
   * @throws Exception what the block throws
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
   * @param <T> the block's result type
   * @param options the lock and its settings
   * @param block the work to do under the lock
   * @return the block's value, or {@code null} when skipped under SKIP
   * @throws Exception what the block throws
   */
  public <T> @Nullable T call(LockOptions options, Callable<T> block) throws Exception {
    return programmatic.call(options, block);
  }

  /**
   * The configured providers by name; the default provider's name is the empty string.
   *
   * @return the configured providers by name; the default provider's name is the empty string
   */
  public Map<String, LockProvider> providers() {
    return providers.all();
  }

  /**
   * The configured providers' names as lock events, health and metrics give them, sorted: {@code
   * default} for the default provider, every other by its configured name.
   *
   * @return the configured providers' names, sorted; {@code default} for the default provider
   */
  public SortedSet<String> providerNames() {
    return providers.displayNames();
  }

  /**
   * The health of each distinct provider, the default first (named {@code default}), as last seen
   * by calls and background probes: down from a call that failed for want of the provider until a
   * probe or a call is answered. Never blocks on a provider.
   *
   * @return the health of each distinct provider, the default first (named {@code default}), as
   *     last seen by calls and background probes: down from a call that failed for want of the
   *     provider until a probe or a call is answered
   */
  public List<ProviderHealth> health() {
    return circuits.health();
  }

  /**
   * Shuts the engine down gracefully: takes no more locks, waits up to the shutdown timeout ({@link
   * Builder#shutdownTimeout}) for the locked calls still running to end, each lease released as its
   * call ends (a minimum hold kept) and every release sent (programmatic leases' included) is
   * confirmed by its provider or ended by its deadline, then stops renewing, stops its own threads
   * and waits for their provider calls still running (a start-up or outage probe, a release handed
   * over, a renewal) to end, interrupted, for the rest of the shutdown timeout and at least 1 s, so
   * that none calls a provider after this returns, and closes the providers this engine created
   * from URLs. Leases still held or unconfirmed after the timeout are left to end by their TTL.
   */
  @Override
  public void close() {
    shutdown.run();
  }

  /** The keeper of this engine's leases. */
  LeaseKeeper keeper() {
    return keeper;
  }

  /** A block of code that may throw. */
  @FunctionalInterface
  public interface ThrowingRunnable {
    /**
     * Runs the block.
     *
     * @throws Exception when the block fails
     */
    void run() throws Exception;
  }

  /** Configures a {@link Locksmith}. */
  public static final class Builder {
    private final Map<String, LockProvider> providers = new LinkedHashMap<>();
    private final List<LockProvider> ownedProviders = new ArrayList<>();
    private final List<LockListener> listeners = new ArrayList<>();
    private UnaryOperator<String> attributeResolver = UnaryOperator.identity();
    private Function<Method, String @Nullable []> parameterNames = method -> null;
    private @Nullable KeyLanguage keyLanguage;
    private ReleaseDeferral releaseDeferral = ReleaseDeferral.NONE;
    private Ticker ticker = Ticker.system();
    private @Nullable Executor renewalExecutor;
    private Duration shutdownTimeout = Duration.ofSeconds(10);
    private Duration probeInterval = Duration.ofSeconds(1);
    private boolean requireProvidersAtStartup;

    private Builder() {}

    /**
     * The provider used when an annotation or options name none.
     *
     * @param provider the default provider
     * @return this builder
     */
    public Builder defaultProvider(LockProvider provider) {
      providers.put(ConfiguredProviders.DEFAULT, Objects.requireNonNull(provider));
      return this;
    }

    /**
     * A provider that {@code @DistributedLock(provider = name)} selects.
     *
     * @param name the provider's name
     * @param provider the provider
     * @return this builder
     */
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
     *
     * @param settings the provider URLs
     * @return this builder
     */
    public Builder settings(LocksmithSettings settings) {
      if (settings.requireProvidersAtStartup()) {
        requireProvidersAtStartup = true;
      }
      ConfiguredProviders.createFrom(settings, providers, ownedProviders);
      return this;
    }

    /**
     * Closes the providers this builder created from {@link #settings settings} (not those given to
     * it), for a caller that gives up before {@link #build()}: a configuration mistake found after
     * some providers were created leaves no client, pool or session running behind it. The builder
     * is not to be used afterwards.
     */
    public void discard() {
      while (!ownedProviders.isEmpty()) {
        LockProvider created = ownedProviders.remove(ownedProviders.size() - 1);
        providers.values().removeIf(p -> p == created);
        try {
          created.close();
        } catch (RuntimeException e) {
          LOG.debug("Closing a provider of a discarded builder failed: {}", e.toString());
        }
      }
    }

    /**
     * A listener told of every acquisition, release, loss and error.
     *
     * @param listener the listener
     * @return this builder
     */
    public Builder listener(LockListener listener) {
      listeners.add(Objects.requireNonNull(listener));
      return this;
    }

    /**
     * Resolves every string attribute of the annotation before it is parsed, such as Spring's
     * {@code ${...}} placeholders. It may throw {@link IllegalArgumentException} with a reason.
     *
     * @param resolver the resolver
     * @return this builder
     */
    public Builder attributeResolver(UnaryOperator<String> resolver) {
      this.attributeResolver = Objects.requireNonNull(resolver);
      return this;
    }

    /**
     * Supplies parameter names where reflection cannot, such as Micronaut's compile-time metadata.
     * The function returns {@code null} to fall back to reflection.
     *
     * @param names a method's parameter names, or null when unknown
     * @return this builder
     */
    public Builder parameterNames(Function<Method, String @Nullable []> names) {
      this.parameterNames = Objects.requireNonNull(names);
      return this;
    }

    /**
     * The language of annotation keys such as {@code #accountId}, in place of the one found on the
     * class path ({@code META-INF/services/dev.locksmith.core.internal.KeyLanguage}, which {@code
     * locking-spel} registers); for example SpEL with a bean resolver. Without either, only literal
     * keys in single quotes can be used, and an expression key fails validation naming the method.
     *
     * @param language the key language
     * @return this builder
     */
    public Builder keyLanguage(KeyLanguage language) {
      this.keyLanguage = Objects.requireNonNull(language);
      return this;
    }

    /**
     * Lets an annotated method's release wait, for example until the transaction it joined
     * completes. Programmatic leases are released when closed.
     *
     * @param deferral the deferral
     * @return this builder
     */
    public Builder releaseDeferral(ReleaseDeferral deferral) {
      this.releaseDeferral = Objects.requireNonNull(deferral);
      return this;
    }

    /**
     * The time source for every lease-timing rule; it must run on the {@link System#nanoTime()}
     * clock the providers' deadlines use, at any speed. Default: {@link Ticker#system()}. For tests
     * on virtual time.
     *
     * @param ticker the time source
     * @return this builder
     */
    public Builder ticker(Ticker ticker) {
      this.ticker = Objects.requireNonNull(ticker);
      return this;
    }

    /**
     * Runs lease renewals (provider calls that may block) on this executor; the engine does not
     * shut it down. The leases due together on one provider are renewed in one batch ({@code
     * LockProvider.renewAll}), with at most one batch in flight per provider, each batch one task.
     * Default: a pool of at most 8 daemon threads of the engine's own. The lease deadlines are
     * watched by the engine's sweeper whatever this executor does.
     *
     * @param executor the executor for renewals
     * @return this builder
     */
    public Builder renewalExecutor(Executor executor) {
      this.renewalExecutor = Objects.requireNonNull(executor);
      return this;
    }

    /**
     * How long {@link Locksmith#close()} waits for locked calls still running. Default: 10 s.
     *
     * @param timeout the longest wait
     * @return this builder
     */
    public Builder shutdownTimeout(Duration timeout) {
      this.shutdownTimeout = Durations.check(timeout, "shutdownTimeout");
      return this;
    }

    /**
     * Whether {@link #build()} probes every provider and fails with {@link LockProviderException}
     * when one does not answer. Default {@code false}: start-up checks configuration only, an
     * unreachable provider starts down and locked calls on it fail fast until it answers.
     *
     * @param require whether to probe and fail
     * @return this builder
     */
    public Builder requireProvidersAtStartup(boolean require) {
      this.requireProvidersAtStartup = require;
      return this;
    }

    /**
     * How often a provider that is down is probed in the background ({@code status} of one lock, at
     * most one probe in flight per provider); its first answer brings it back. Default: 1 s.
     *
     * @param interval the probe interval
     * @return this builder
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
     * @return the engine
     * @throws LockProviderException with providers required at start-up, naming each provider that
     *     did not answer and why; the providers this builder created are closed then
     */
    public Locksmith build() {
      Locksmith engine = new Locksmith(this);
      engine.listeners.attached(engine);
      if (!requireProvidersAtStartup) {
        engine.circuits.probeAll();
        return engine;
      }
      try {
        engine.circuits.requireAll();
      } catch (RuntimeException e) {
        engine.close();
        throw e;
      }
      return engine;
    }
  }
}
