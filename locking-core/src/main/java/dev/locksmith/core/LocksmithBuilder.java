package dev.locksmith.core;

import dev.locksmith.core.internal.KeyLanguage;
import dev.locksmith.core.internal.ReleaseDeferral;
import dev.locksmith.core.spi.LockProvider;
import java.lang.reflect.Method;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.Executor;
import java.util.function.Function;
import java.util.function.UnaryOperator;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Configures a {@link Locksmith}: its providers (given, or created from settings' URLs), listeners,
 * key language and timing. Get one from {@link Locksmith#builder()}; not thread-safe.
 */
public final class LocksmithBuilder {
  private static final Logger LOG = LoggerFactory.getLogger(Locksmith.class);

  final Map<String, LockProvider> providers = new LinkedHashMap<>();
  final List<LockProvider> ownedProviders = new ArrayList<>();
  final List<LockListener> listeners = new ArrayList<>();
  UnaryOperator<String> attributeResolver = UnaryOperator.identity();
  Function<Method, String @Nullable []> parameterNames = method -> null;
  @Nullable KeyLanguage keyLanguage;
  ReleaseDeferral releaseDeferral = ReleaseDeferral.NONE;
  Ticker ticker = Ticker.system();
  @Nullable Executor renewalExecutor;
  Duration shutdownTimeout = Duration.ofSeconds(10);
  Duration probeInterval = Duration.ofSeconds(1);
  boolean requireProvidersAtStartup;

  LocksmithBuilder() {}

  /**
   * The provider used when an annotation or options name none.
   *
   * @param provider the default provider
   * @return this builder
   */
  public LocksmithBuilder defaultProvider(LockProvider provider) {
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
  public LocksmithBuilder provider(String name, LockProvider provider) {
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
  public LocksmithBuilder settings(LocksmithSettings settings) {
    if (settings.requireProvidersAtStartup()) {
      requireProvidersAtStartup = true;
    }
    ConfiguredProviders.createFrom(settings, providers, ownedProviders);
    return this;
  }

  /**
   * Closes the providers this builder created from {@link #settings settings} (not those given to
   * it), for a caller that gives up before {@link #build()}: a configuration mistake found after
   * some providers were created leaves no client, pool or session running behind it. The builder is
   * not to be used afterwards.
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
  public LocksmithBuilder listener(LockListener listener) {
    listeners.add(Objects.requireNonNull(listener));
    return this;
  }

  /**
   * Resolves every string attribute of the annotation before it is parsed, such as Spring's {@code
   * ${...}} placeholders. It may throw {@link IllegalArgumentException} with a reason.
   *
   * @param resolver the resolver
   * @return this builder
   */
  public LocksmithBuilder attributeResolver(UnaryOperator<String> resolver) {
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
  public LocksmithBuilder parameterNames(Function<Method, String @Nullable []> names) {
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
  public LocksmithBuilder keyLanguage(KeyLanguage language) {
    this.keyLanguage = Objects.requireNonNull(language);
    return this;
  }

  /**
   * Lets an annotated method's release wait, for example until the transaction it joined completes.
   * Programmatic leases are released when closed.
   *
   * @param deferral the deferral
   * @return this builder
   */
  public LocksmithBuilder releaseDeferral(ReleaseDeferral deferral) {
    this.releaseDeferral = Objects.requireNonNull(deferral);
    return this;
  }

  /**
   * The time source for every lease-timing rule; it must run on the {@link System#nanoTime()} clock
   * the providers' deadlines use, at any speed. Default: {@link Ticker#system()}. For tests on
   * virtual time.
   *
   * @param ticker the time source
   * @return this builder
   */
  public LocksmithBuilder ticker(Ticker ticker) {
    this.ticker = Objects.requireNonNull(ticker);
    return this;
  }

  /**
   * Runs lease renewals (provider calls that may block) on this executor; the engine does not shut
   * it down. The leases due together on one provider are renewed in one batch ({@code
   * LockProvider.renewAll}), with at most one batch in flight per provider, each batch one task.
   * Default: a pool of the engine's own, one daemon thread per provider with leases to renew. The
   * lease deadlines are watched by the engine's sweeper whatever this executor does. A batch the
   * executor refuses (throws for) is offered again at every tick, and logged at ERROR once until it
   * takes one again; a batch it takes and has not run within 1 s (a discard policy) is offered
   * again every second, logged once until it runs one, and only the first offer to run runs it; a
   * batch it runs after {@link Locksmith#close()} calls no provider.
   *
   * @param executor the executor for renewals
   * @return this builder
   */
  public LocksmithBuilder renewalExecutor(Executor executor) {
    this.renewalExecutor = Objects.requireNonNull(executor);
    return this;
  }

  /**
   * How long {@link Locksmith#close()} waits for locked calls still running. Default: 10 s.
   *
   * @param timeout the longest wait
   * @return this builder
   */
  public LocksmithBuilder shutdownTimeout(Duration timeout) {
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
  public LocksmithBuilder requireProvidersAtStartup(boolean require) {
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
  public LocksmithBuilder providerProbeInterval(Duration interval) {
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
    return Locksmith.start(this);
  }
}
