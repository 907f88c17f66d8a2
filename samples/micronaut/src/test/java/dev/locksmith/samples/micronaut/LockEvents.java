package dev.locksmith.samples.micronaut;

import dev.locksmith.core.LockEvent;
import dev.locksmith.core.LockListener;
import jakarta.inject.Singleton;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/** Counts the engine's events per lock name, for the smoke test's assertions. */
@Singleton
final class LockEvents implements LockListener {
  private final Map<String, AtomicInteger> acquired = new ConcurrentHashMap<>();
  private final Map<String, AtomicInteger> busy = new ConcurrentHashMap<>();

  @Override
  public void acquired(LockEvent event, Duration waited) {
    count(acquired, event.name());
  }

  @Override
  public void busy(LockEvent event) {
    count(busy, event.name());
  }

  int acquired(String name) {
    return get(acquired, name);
  }

  int busy(String name) {
    return get(busy, name);
  }

  private static void count(Map<String, AtomicInteger> counts, String name) {
    counts.computeIfAbsent(name, n -> new AtomicInteger()).incrementAndGet();
  }

  private static int get(Map<String, AtomicInteger> counts, String name) {
    AtomicInteger count = counts.get(name);
    return count == null ? 0 : count.get();
  }
}
