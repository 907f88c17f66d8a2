package dev.locksmith.core.internal;

import dev.locksmith.core.Lease;
import dev.locksmith.core.LockBusyException;
import dev.locksmith.core.LockOptions;
import dev.locksmith.core.LockTimeoutException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import org.jspecify.annotations.Nullable;

/**
 * An intercepted call whose lock is resolved (spec, key, provider) but not yet taken, for return
 * types that run later, such as reactive publishers: an integration takes the lease when the result
 * is subscribed and closes it on the terminal signal or cancellation. Made by {@link
 * dev.locksmith.core.Locksmith#prepare}.
 *
 * <pre>{@code
 * PreparedCall call = locksmith.prepare(invocation);
 * Mono.usingWhen(
 *     Mono.fromFuture(call.acquireAsync())                   // busy policy applied here
 *         .doOnDiscard(Lease.class, call::release),          // granted, but cancelled meanwhile
 *     lease -> (Mono<?>) invocation.proceed(),
 *     lease -> Mono.fromRunnable(() -> call.release(lease)));
 * }</pre>
 */
public interface PreparedCall {

  /**
   * The options with the evaluated key.
   *
   * @return the options with the evaluated key
   */
  LockOptions options();

  /**
   * Takes the lock under the method's busy policy, on the calling thread. When that thread holds
   * the lock already, the call reenters that lease as a nested call does, and the lock stays held
   * until this lease is released too.
   *
   * @return the lease, or {@code null} when the call is skipped under SKIP
   * @throws LockBusyException when busy under FAIL
   * @throws LockTimeoutException when WAIT ran out
   */
  @Nullable Lease acquire();

  /**
   * Takes the lock as {@link #acquireAsync(Executor)} does, on the engine's own threads for this,
   * never on a shared pool: each waiting call blocks one of them, so waits cannot hold back work or
   * releases queued on the pool they would fill.
   *
   * @return the lease, or null when none was granted
   */
  CompletableFuture<@Nullable Lease> acquireAsync();

  /**
   * Takes the lock on {@code executor} (waiting blocks) and completes the returned future with the
   * lease, or with {@code null} when skipped. Cancelling the future leaks nothing: a lease granted
   * after the cancellation is released at once. For reactive integrations, whose subscribers may
   * cancel at any moment.
   *
   * <p>When the calling thread holds the lock already, the call reenters that lease as a nested
   * call does: the future is complete at once, and the lock stays held until this lease is released
   * too.
   *
   * @param executor where the lock is taken
   * @return the lease, or null when none was granted
   */
  CompletableFuture<@Nullable Lease> acquireAsync(Executor executor);

  /**
   * Runs the intercepted method on the calling thread as the holder of {@code lease}, as a
   * synchronous locked method runs: {@link dev.locksmith.core.Locks#current()} finds the lease, and
   * a nested call on its lock reenters it, until the method returns.
   *
   * @param lease the lease taken for this call
   * @param method runs the intercepted method
   * @return what the method returned
   * @throws Throwable what the method threw
   */
  @Nullable Object proceedHolding(Lease lease, ReactiveCall.Proceed method) throws Throwable;

  /**
   * Releases a lease taken by {@link #acquire()}, through the engine's {@link ReleaseDeferral}.
   *
   * @param lease the lease
   */
  void release(Lease lease);
}
