package dev.locksmith.core;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import org.jspecify.annotations.Nullable;

/**
 * An intercepted call whose lock is resolved (spec, key, provider) but not yet taken, for return
 * types that run later, such as reactive publishers: an integration takes the lease when the result
 * is subscribed and closes it on the terminal signal or cancellation.
 *
 * <pre>{@code
 * PreparedCall call = locksmith.prepare(invocation);
 * Mono.usingWhen(
 *     Mono.fromFuture(call.acquireAsync(blockingExecutor))   // busy policy applied here
 *         .doOnDiscard(Lease.class, call::release),          // granted, but cancelled meanwhile
 *     lease -> (Mono<?>) invocation.proceed(),
 *     lease -> Mono.fromRunnable(() -> call.release(lease)));
 * }</pre>
 */
public final class PreparedCall {
  private final LockedCalls calls;
  private final LockOptions options;
  private final MethodSpec spec;

  PreparedCall(LockedCalls calls, LockOptions options, MethodSpec spec) {
    this.calls = calls;
    this.options = options;
    this.spec = spec;
  }

  /** The options with the evaluated key. */
  public LockOptions options() {
    return options;
  }

  /**
   * Takes the lock under the method's busy policy, on the calling thread.
   *
   * @return the lease, or {@code null} when the call is skipped under SKIP
   * @throws LockBusyException when busy under FAIL
   * @throws LockTimeoutException when WAIT ran out
   */
  public @Nullable Lease acquire() {
    return calls.obtain(spec, options);
  }

  /**
   * Takes the lock on {@code executor} (waiting blocks) and completes the returned future with the
   * lease, or with {@code null} when skipped. Cancelling the future leaks nothing: a lease granted
   * after the cancellation is released at once. For reactive integrations, whose subscribers may
   * cancel at any moment.
   */
  public CompletableFuture<@Nullable Lease> acquireAsync(Executor executor) {
    CompletableFuture<@Nullable Lease> result = new CompletableFuture<>();
    executor.execute(
        () -> {
          if (result.isDone()) {
            return; // cancelled before it started
          }
          try {
            Lease lease = acquire();
            if (!result.complete(lease) && lease != null) {
              release(lease);
            }
          } catch (Throwable e) {
            result.completeExceptionally(e);
          }
        });
    return result;
  }

  /** Releases a lease taken by {@link #acquire()}, through the engine's {@link ReleaseDeferral}. */
  public void release(Lease lease) {
    calls.release((ActiveLease) lease);
  }
}
