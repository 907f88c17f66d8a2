package dev.locksmith.core.internal;

import dev.locksmith.core.Lease;
import java.util.function.Supplier;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * Holds the lock of a method returning a Reactor {@link Mono} or {@link Flux} from subscription to
 * the terminal signal or cancellation: the one place where Spring, Micronaut and AspectJ hold a
 * lock over a reactive result.
 *
 * <ul>
 *   <li>Each subscription takes a lease of its own, through {@link PreparedCall#acquireAsync()} on
 *       the engine's own threads (waiting blocks one; never Reactor's bounded-elastic pool, where
 *       waits could hold back the holder's release), under the method's busy policy: a call skipped
 *       under SKIP completes empty without running the method, FAIL and a WAIT that ran out signal
 *       their exception. A subscription on a thread that holds the lock already (a {@code block()}
 *       inside a locked method, say) reenters its lease, which then stays held until this result
 *       ends too.
 *   <li>Only then is the method run ({@link ReactiveCall#proceed}); what it throws becomes an error
 *       signal, and a {@code null} result an empty one.
 *   <li>The lease is released on completion, error or cancellation, on the bounded-elastic
 *       scheduler (never on the thread that signalled, which may be an event loop). A lease granted
 *       after the subscriber cancelled is released at once, not leaked.
 * </ul>
 *
 * <p>Uses Reactor: call it only when {@link ReactiveReturns#isReactorPresent()} says Reactor is on
 * the class path, or through {@link ReactiveReturns#hold}, which names no Reactor type.
 */
public final class ReactiveResults {
  private ReactiveResults() {}

  /**
   * A {@link Mono} that runs the call under its lock on each subscription, with at most the first
   * element of the method's publisher.
   *
   * @param subscriptions makes the call of each subscription
   * @return a {@link Mono} that runs the call under its lock on each subscription, with at most the
   *     first element of the method's publisher
   */
  public static Mono<Object> mono(Supplier<? extends ReactiveCall> subscriptions) {
    return Mono.defer(
        () -> {
          ReactiveCall call = subscriptions.get();
          PreparedCall prepared = call.prepared();
          return Mono.usingWhen(
              acquire(prepared),
              lease -> Mono.from(proceed(call, lease)),
              lease -> release(prepared, lease),
              (lease, error) -> release(prepared, lease),
              lease -> release(prepared, lease));
        });
  }

  /**
   * A {@link Flux} that runs the call under its lock on each subscription.
   *
   * @param subscriptions makes the call of each subscription
   * @return a {@link Flux} that runs the call under its lock on each subscription
   */
  public static Flux<Object> flux(Supplier<? extends ReactiveCall> subscriptions) {
    return Flux.defer(
        () -> {
          ReactiveCall call = subscriptions.get();
          PreparedCall prepared = call.prepared();
          return Flux.usingWhen(
              acquire(prepared),
              lease -> proceed(call, lease),
              lease -> release(prepared, lease),
              (lease, error) -> release(prepared, lease),
              lease -> release(prepared, lease));
        });
  }

  /** The lease, or empty when skipped. */
  private static Mono<Lease> acquire(PreparedCall prepared) {
    // Cancel-safe: a lease granted after the subscriber cancelled is released, not leaked.
    return Mono.fromFuture(prepared::acquireAsync).doOnDiscard(Lease.class, prepared::release);
  }

  @SuppressWarnings("unchecked")
  private static Publisher<Object> proceed(ReactiveCall call, Lease lease) {
    try {
      Object result = call.prepared().proceedHolding(lease, call::proceed);
      return result == null ? Mono.empty() : (Publisher<Object>) result;
    } catch (Throwable e) {
      return Mono.error(e);
    }
  }

  private static Mono<Void> release(PreparedCall prepared, Lease lease) {
    // Never on the thread that signalled completion, which may be an event loop.
    return Mono.<Void>fromRunnable(() -> prepared.release(lease))
        .subscribeOn(Schedulers.boundedElastic());
  }
}
