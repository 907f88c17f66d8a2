package dev.locksmith.testkit;

import java.time.Duration;

/**
 * The timings a provider's conformance test declares, by overriding {@link
 * LockProviderContract#shortTtl()}, {@link LockProviderContract#expiryGrace()} and {@link
 * LockProviderContract#maxHandOff()}.
 *
 * @param shortTtl the shortest TTL the provider handles well in tests
 * @param expiryGrace extra time past a TTL before the provider frees an abandoned lock
 * @param maxHandOff the upper bound asserted for the median hand-off from a release to a waiter
 */
public record ContractTimings(Duration shortTtl, Duration expiryGrace, Duration maxHandOff) {}
