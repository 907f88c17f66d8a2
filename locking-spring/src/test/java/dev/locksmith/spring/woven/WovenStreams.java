package dev.locksmith.spring.woven;

import dev.locksmith.annotation.DistributedLock;
import dev.locksmith.annotation.OnBusy;
import java.util.concurrent.atomic.AtomicInteger;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/** Reactive methods woven by the aspect: not a bean, since aspectj mode needs no proxy. */
public class WovenStreams {
  /** How many times a method body ran. */
  final AtomicInteger runs = new AtomicInteger();

  /** Runs under the lock until {@code work} completes. */
  @DistributedLock(name = "streams", key = "#account", onBusy = OnBusy.FAIL)
  public Mono<String> mono(String account, Mono<String> work) {
    runs.incrementAndGet();
    return work.map(value -> value + "!");
  }

  /**
   * Runs under the lock until {@code work} ends or is cancelled; skipped while the lock is held.
   */
  @DistributedLock(name = "streams", key = "#account", onBusy = OnBusy.SKIP)
  public Flux<Integer> flux(String account, Flux<Integer> work) {
    runs.incrementAndGet();
    return work;
  }
}
