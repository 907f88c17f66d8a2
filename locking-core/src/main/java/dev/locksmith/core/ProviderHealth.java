package dev.locksmith.core;

import java.time.Instant;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * What the engine knows of one provider's reachability, as kept by its outage circuit: up until a
 * call fails for want of the store, then down (locked calls fail fast) until a background probe or
 * a call is answered again.
 *
 * @param name the provider's configured name, {@code default} for the default provider
 * @param description the provider's description (its URL without secrets)
 * @param up whether the provider answered its last call or probe
 * @param problem why it is down, one line; {@code null} when up
 * @param since when the provider entered its current state
 */
public record ProviderHealth(
    String name, String description, boolean up, @Nullable String problem, Instant since) {

  /**
   * Checks the components.
   *
   * @param name see {@link #name()}
   * @param description see {@link #description()}
   * @param up see {@link #up()}
   * @param problem see {@link #problem()}
   * @param since see {@link #since()}
   */
  public ProviderHealth {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(description, "description");
    Objects.requireNonNull(since, "since");
  }
}
