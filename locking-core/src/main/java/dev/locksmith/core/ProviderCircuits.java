package dev.locksmith.core;

import dev.locksmith.core.spi.LockProvider;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The engine's providers as outage circuits: one {@link ProviderCircuit} per distinct provider (by
 * identity), the default provider's first, each told to the {@link LeaseKeeper} when its provider
 * pushes a lost lease. Reports their health and runs the start-up probes.
 */
final class ProviderCircuits {
  // The engine's lines, under the engine's name.
  private static final Logger LOG = LoggerFactory.getLogger(Locksmith.class);

  private final Map<LockProvider, ProviderCircuit> byProvider = new IdentityHashMap<>();
  private final List<ProviderCircuit> ordered = new ArrayList<>();
  private final List<AutoCloseable> lossRegistrations = new ArrayList<>();
  private final LeaseKeeper keeper;

  ProviderCircuits(
      Map<String, LockProvider> providers,
      Ticker ticker,
      LeaseKeeper keeper,
      Duration probeInterval,
      Instant startedAt) {
    this.keeper = keeper;
    providers.entrySet().stream()
        .sorted(Map.Entry.comparingByKey())
        .forEach(
            entry -> {
              if (!byProvider.containsKey(entry.getValue())) {
                ProviderCircuit circuit =
                    new ProviderCircuit(
                        ConfiguredProviders.display(entry.getKey()),
                        entry.getValue(),
                        ticker,
                        keeper::runAfter,
                        probeInterval,
                        startedAt);
                byProvider.put(entry.getValue(), circuit);
                ordered.add(circuit);
              }
            });
    for (ProviderCircuit circuit : ordered) {
      LOG.info("Lock provider {}: {}", circuit.name(), circuit.description());
      lossRegistrations.add(circuit.provider().onLeaseLost(keeper::lost));
    }
  }

  /** The circuit of a configured provider. */
  ProviderCircuit of(LockProvider provider) {
    return Objects.requireNonNull(byProvider.get(provider));
  }

  /** The health of each distinct provider, the default first; never calls a provider. */
  List<ProviderHealth> health() {
    List<ProviderHealth> health = new ArrayList<>(ordered.size());
    for (ProviderCircuit circuit : ordered) {
      health.add(circuit.health());
    }
    return health;
  }

  /** Probes every provider once in the background, so health turns down soon after start. */
  void probeAll() {
    for (ProviderCircuit circuit : ordered) {
      circuit.probeAfter(Duration.ZERO);
    }
  }

  /**
   * Probes every provider now, in parallel, and fails naming each that did not answer.
   *
   * @throws LockProviderException naming each provider that did not answer and why
   */
  void requireAll() {
    Map<ProviderCircuit, CompletableFuture<@Nullable RuntimeException>> checks =
        new LinkedHashMap<>();
    for (ProviderCircuit circuit : ordered) {
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

  /** Stops listening for pushed losses and stops the probes. */
  void stop() {
    for (AutoCloseable registration : lossRegistrations) {
      try {
        registration.close();
      } catch (Exception e) {
        // Nothing to do: the provider is going away too.
      }
    }
    for (ProviderCircuit circuit : ordered) {
      circuit.stop();
    }
  }
}
