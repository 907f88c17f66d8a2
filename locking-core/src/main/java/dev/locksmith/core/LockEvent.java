package dev.locksmith.core;

/**
 * What a listener is told about one lock. Metrics should tag with {@link #name()} only: the lock id
 * contains evaluated keys, whose number is unbounded.
 *
 * @param name the lock's name
 * @param lockId the lock id, {@code name} or {@code name:key}
 * @param provider the provider's name ({@code default} for the default provider)
 * @param fencingToken the lease's fencing token, or {@code 0} when no lease was granted
 */
public record LockEvent(String name, String lockId, String provider, long fencingToken) {}
