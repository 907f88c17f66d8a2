package dev.locksmith.redis;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The removals of channel listeners still in flight, by channel: a new subscription to a channel
 * waits for its predecessor's removal so the two never race inside Redisson.
 */
final class UnsubscriptionsInFlight {
  private final ConcurrentHashMap<String, CompletableFuture<Void>> removals =
      new ConcurrentHashMap<>();

  /** Keeps {@code removal} of {@code channel}'s listeners until it completes. */
  void track(String channel, CompletableFuture<Void> removal) {
    removals.put(channel, removal);
    removal.whenComplete((ignored, error) -> removals.remove(channel, removal));
  }

  /**
   * Waits, without reacting to interrupts, for the removal in flight on {@code channel}, if any, to
   * complete, whether it succeeds or fails.
   */
  void awaitRemoval(String channel) {
    CompletableFuture<Void> pendingRemoval = removals.get(channel);
    if (pendingRemoval != null) {
      try {
        pendingRemoval.join();
      } catch (RuntimeException e) {
        // The removal failed with its connection; the subscription that follows starts afresh.
      }
    }
  }
}
