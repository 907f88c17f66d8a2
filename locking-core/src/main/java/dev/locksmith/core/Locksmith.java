package dev.locksmith.core;

import dev.locksmith.annotation.OnBusy;
import dev.locksmith.core.internal.AnnotatedMethods;
import dev.locksmith.core.internal.LockedInvocation;
import dev.locksmith.core.internal.PreparedCall;
import dev.locksmith.core.spi.LockProvider;
import java.lang.reflect.Method;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.SortedSet;
import java.util.concurrent.Callable;
import org.jspecify.annotations.Nullable;

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
  private final ConfiguredProviders providers;
  private final LeaseKeeper keeper;
  private final MethodSpecs specs;
  private final ProviderCircuits circuits;
  private final LeaseAcquirer acquirer;
  private final LockedCalls lockedCalls;
  private final ProgrammaticCalls programmatic;
  private final Listeners listeners;
  private final EngineShutdown shutdown;

  private Locksmith(LocksmithBuilder builder) {
    this.providers = new ConfiguredProviders(builder.providers);
    this.listeners = new Listeners(builder.listeners);
    this.keeper = new LeaseKeeper(builder.ticker, builder.renewalExecutor);
    this.circuits =
        new ProviderCircuits(
            builder.providers, builder.ticker, keeper, builder.probeInterval, Instant.now());
    GrantGate gate = new GrantGate();
    this.acquirer = new LeaseAcquirer(circuits, listeners, builder.ticker, keeper, gate);
    this.specs =
        new MethodSpecs(
            providers,
            builder.attributeResolver,
            builder.parameterNames,
            builder.keyLanguage != null ? builder.keyLanguage : KeyLanguages.discover());
    this.lockedCalls =
        new LockedCalls(
            specs, acquirer, listeners, builder.releaseDeferral, keeper.reactiveAcquirers());
    this.programmatic = new ProgrammaticCalls(providers, acquirer);
    this.shutdown =
        new EngineShutdown(gate, keeper, circuits, builder.shutdownTimeout, builder.ownedProviders);
  }

  /**
   * A builder with no providers.
   *
   * @return a builder with no providers
   */
  public static LocksmithBuilder builder() {
    return new LocksmithBuilder();
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
   * providers, busy policy), so that a mistake fails at start-up rather than on the first call: its
   * annotated methods ({@link AnnotatedMethods#of}) and the locked interface methods that methods
   * it inherits implement for it ({@link AnnotatedMethods#inheritedBodies}).
   *
   * @param type the class
   * @return how many annotated methods were checked
   * @throws LockConfigurationException naming the class, method and attribute of the first mistake
   */
  public int validate(Class<?> type) {
    List<Method> methods = lockedMethods(type);
    methods.forEach(specs::get);
    return methods.size();
  }

  private static List<Method> lockedMethods(Class<?> type) {
    List<Method> methods = new ArrayList<>(AnnotatedMethods.of(type));
    for (Method locked : AnnotatedMethods.inheritedBodies(type).values()) {
      if (!methods.contains(locked)) {
        methods.add(locked);
      }
    }
    return methods;
  }

  /**
   * {@link #validate(Class)} for an integration that runs each call through {@link #invoke}, and a
   * method returning a Reactor {@code Mono} or {@code Flux} through {@code ReactiveReturns.hold}
   * (Spring's proxies, the AspectJ aspect): a method returning another lazy result (a JDK {@code
   * Flow.Publisher}, an RxJava {@code Single}...), which {@code invoke} would refuse at every call,
   * is refused now.
   *
   * @param type the class
   * @return how many annotated methods were checked
   * @throws LockConfigurationException naming the class, method and attribute of the first mistake
   */
  public int validateForInvoke(Class<?> type) {
    List<Method> methods = lockedMethods(type);
    for (Method method : methods) {
      LockedCalls.checkHeldByInvoke(specs.get(method));
    }
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
   * Checks one method now as {@link #validateForInvoke(Class)} does, for an integration whose calls
   * of this method go through {@link #invoke}: one that cannot hold the method's lazy result
   * otherwise (Micronaut, for a type it cannot convert to a publisher).
   *
   * @param method the method
   * @throws LockConfigurationException naming the method and what is wrong
   */
  public void validateForInvoke(Method method) {
    LockedCalls.checkHeldByInvoke(specs.get(method));
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
   * LocksmithBuilder#shutdownTimeout}) for the locked calls still running to end, each lease
   * released as its call ends (a minimum hold kept) and every release sent (programmatic leases'
   * included) is confirmed by its provider or ended by its deadline, then stops renewing, stops its
   * own threads and waits for their provider calls still running (a start-up or outage probe, a
   * release handed over, a renewal) to end, interrupted, for the rest of the shutdown timeout and
   * at least 1 s, so that none calls a provider after this returns, and closes the providers this
   * engine created from URLs. Leases still held or unconfirmed after the timeout are left to end by
   * their TTL.
   */
  @Override
  public void close() {
    shutdown.run();
  }

  /**
   * Builds an engine from a builder and starts it: tells the listeners, then probes every provider
   * in the background, or now when the builder requires providers at start-up.
   */
  static Locksmith start(LocksmithBuilder builder) {
    Locksmith engine;
    try {
      engine = new Locksmith(builder);
    } catch (RuntimeException | Error e) {
      // No engine owns them yet, and a caller of fromSettings() never sees the builder.
      builder.discard();
      throw e;
    }
    engine.listeners.attached(engine);
    if (!builder.requireProvidersAtStartup) {
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
}
