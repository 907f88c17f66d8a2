package dev.locksmith.samples.springboot;

import dev.locksmith.core.LockEvent;
import dev.locksmith.core.LockListener;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/** Counts lock events by lock name, and keeps the fencing token of every grant by lock id. */
final class LockEvents implements LockListener {
  private final Map<String, AtomicInteger> acquired = new ConcurrentHashMap<>();
  private final Map<String, AtomicInteger> busy = new ConcurrentHashMap<>();
  private final Map<String, List<Long>> tokens = new ConcurrentHashMap<>();

  @Override
  public void acquired(LockEvent event, Duration waited) {
    acquired.computeIfAbsent(event.name(), n -> new AtomicInteger()).incrementAndGet();
    tokens
        .computeIfAbsent(event.lockId(), id -> new CopyOnWriteArrayList<>())
        .add(event.fencingToken());
  }

  @Override
  public void busy(LockEvent event) {
    busy.computeIfAbsent(event.name(), n -> new AtomicInteger()).incrementAndGet();
  }

  int acquired(String name) {
    return acquired.getOrDefault(name, new AtomicInteger()).get();
  }

  int busy(String name) {
    return busy.getOrDefault(name, new AtomicInteger()).get();
  }

  /** The fencing tokens of every grant of {@code lockId}, in the order they were reported. */
  List<Long> tokens(String lockId) {
    return List.copyOf(tokens.getOrDefault(lockId, List.of()));
  }
}
