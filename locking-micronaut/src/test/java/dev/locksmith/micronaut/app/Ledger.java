package dev.locksmith.micronaut.app;

import dev.locksmith.annotation.DistributedLock;
import dev.locksmith.annotation.OnBusy;
import dev.locksmith.core.Lease;
import dev.locksmith.core.Locks;
import io.micronaut.context.annotation.Requires;
import io.micronaut.scheduling.annotation.Async;
import jakarta.inject.Singleton;
import java.io.IOException;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReference;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/** Locked methods of every kind, for {@link DistributedLockInterceptorTest}. */
@Singleton
@Requires(env = "ledger")
class Ledger {
  final AtomicReference<Lease> asyncLease = new AtomicReference<>();

  /** Key from a parameter name: the test classes are compiled without -parameters. */
  @DistributedLock(name = "ledger", key = "#account", onBusy = OnBusy.FAIL)
  String transfer(String account, Gate gate) {
    gate.pass();
    return Locks.current().lockId();
  }

  @DistributedLock(name = "skip", onBusy = OnBusy.SKIP)
  String skipping(Gate gate) {
    gate.pass();
    return "ran";
  }

  @DistributedLock(name = "skip", onBusy = OnBusy.SKIP)
  Optional<String> skippingOptional() {
    return Optional.of("ran");
  }

  @DistributedLock(name = "wait", waitTimeout = "200ms")
  String waitBriefly(Gate gate) {
    gate.pass();
    return "ran";
  }

  @DistributedLock(name = "wait", waitTimeout = "20s")
  String waitLong() {
    return "waited";
  }

  @DistributedLock(name = "stage", onBusy = OnBusy.FAIL)
  CompletableFuture<String> stage(CompletableFuture<String> work) {
    return work.thenApply(value -> value + "!");
  }

  @DistributedLock(name = "mono", onBusy = OnBusy.FAIL)
  Mono<String> mono(Mono<String> work) {
    return work.map(value -> value + "!");
  }

  @DistributedLock(name = "flux", onBusy = OnBusy.SKIP)
  Flux<Integer> flux(Flux<Integer> work) {
    return work;
  }

  @DistributedLock(name = "failing", onBusy = OnBusy.FAIL)
  void failing() throws IOException {
    throw new IOException("disk on fire");
  }

  @Async
  @DistributedLock(name = "async", onBusy = OnBusy.FAIL)
  void async(Gate gate) {
    asyncLease.set(Locks.current());
    gate.pass();
  }

  @NightlyJob
  String nightly(Gate gate) {
    gate.pass();
    return Locks.current().lockId();
  }
}
