package dev.locksmith.core;

import dev.locksmith.core.internal.LockedInvocation;
import dev.locksmith.core.internal.PreparedCall;
import dev.locksmith.core.internal.ReactiveCall;
import dev.locksmith.core.internal.ReactiveReturns;
import dev.locksmith.core.internal.ReleaseDeferral;
import dev.locksmith.core.spi.LockIdText;
import dev.locksmith.core.spi.LockProvider;
import java.lang.reflect.Method;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs intercepted calls of annotated methods under their locks: the method's spec and key, the
 * busy policy's answer for a skipped call, reentrancy, holding the lease until a returned {@code
 * CompletionStage} completes, and release through the {@link ReleaseDeferral}.
 */
final class LockedCalls {
  private static final Logger LOG = LoggerFactory.getLogger(LockedCalls.class);

  private final MethodSpecs specs;
  private final LeaseAcquirer acquirer;
  private final Listeners listeners;
  private final ReleaseDeferral releaseDeferral;
  private final Executor reactiveAcquirers;

  LockedCalls(
      MethodSpecs specs,
      LeaseAcquirer acquirer,
      Listeners listeners,
      ReleaseDeferral releaseDeferral,
      Executor reactiveAcquirers) {
    this.specs = specs;
    this.acquirer = acquirer;
    this.listeners = listeners;
    this.releaseDeferral = releaseDeferral;
    this.reactiveAcquirers = reactiveAcquirers;
  }

  /**
   * Refuses a method whose result runs after it returns and that neither {@link #invoke} nor, for a
   * Reactor {@code Mono} or {@code Flux}, {@link ReactiveReturns#hold} holds; see {@link
   * Locksmith#validateForInvoke}.
   */
  static void checkHeldByInvoke(MethodSpec spec) {
    if (spec.returnKind() == ReturnKind.PUBLISHER
        && !ReactiveReturns.isMonoOrFlux(spec.method().getReturnType())) {
      throw lazyResultNotHeld(spec);
    }
  }

  private static LockConfigurationException lazyResultNotHeld(MethodSpec spec) {
    return new LockConfigurationException(
        MethodSpecs.describe(spec.method())
            + ": returns a reactive "
            + spec.method().getReturnType().getSimpleName()
            + ", which runs after the method returns, so a plain invoke would release the"
            + " lock before the work; every integration holds Mono and Flux results until they"
            + " terminate (through ReactiveResults) when reactor-core is on the class path,"
            + " other publishers are not held: return a Mono, a Flux or a CompletionStage");
  }

  /** See {@link Locksmith#invoke}. */
  @Nullable Object invoke(LockedInvocation invocation) throws Throwable {
    MethodSpec spec = specs.get(invocation.method());
    if (spec.returnKind() == ReturnKind.PUBLISHER) {
      throw lazyResultNotHeld(spec);
    }
    LockOptions options = optionsFor(spec, invocation);
    LockProvider provider = spec.provider().provider();
    ActiveLease reentered = HeldLeases.find(provider, options);
    if (reentered != null) {
      return proceedHeld(reentered, invocation, spec);
    }
    HeldLease lease = obtain(spec, options);
    if (lease == null) {
      return spec.returnKind().skipped();
    }
    boolean releaseNow = true;
    HeldLeases.push(lease);
    try {
      Object result = invocation.proceed();
      if (spec.returnKind() == ReturnKind.STAGE && result != null) {
        Object held = holdUntilComplete((CompletionStage<?>) result, lease::close, spec.method());
        releaseNow = false; // only once the stage holds it: else released below
        return held;
      }
      return result;
    } finally {
      HeldLeases.pop(lease);
      if (releaseNow) {
        release(lease);
      }
    }
  }

  /** See {@link Locksmith#prepare}. */
  PreparedCall prepare(LockedInvocation invocation) {
    MethodSpec spec = specs.get(invocation.method());
    return new Prepared(optionsFor(spec, invocation), spec);
  }

  /** An intercepted call whose lock is resolved but not yet taken. */
  private final class Prepared implements PreparedCall {
    private final LockOptions options;
    private final MethodSpec spec;

    Prepared(LockOptions options, MethodSpec spec) {
      this.options = options;
      this.spec = spec;
    }

    @Override
    public LockOptions options() {
      return options;
    }

    @Override
    public @Nullable Lease acquire() {
      ActiveLease reentered = HeldLeases.find(spec.provider().provider(), options);
      if (reentered != null) {
        return new ReenteredLease(reentered, reentered.retain());
      }
      return obtain(spec, options);
    }

    @Override
    public CompletableFuture<@Nullable Lease> acquireAsync() {
      return acquireAsync(reactiveAcquirers);
    }

    @Override
    public @Nullable Object proceedHolding(Lease lease, ReactiveCall.Proceed method)
        throws Throwable {
      if (!(lease instanceof HeldLease held)) {
        return method.proceed(); // reentered: the outer lease is this thread's already
      }
      HeldLeases.push(held);
      try {
        return method.proceed();
      } finally {
        HeldLeases.pop(held);
      }
    }

    /**
     * {@inheritDoc}
     *
     * <p>Cancelling the future interrupts the acquisition's thread, so that a {@code WAIT} whose
     * subscriber went away stops waiting, holding nothing, instead of taking the lock (and a place
     * in the queue and a thread) until its {@code waitTimeout}.
     */
    @Override
    public CompletableFuture<@Nullable Lease> acquireAsync(Executor executor) {
      LockProvider provider = spec.provider().provider();
      ActiveLease reentered = HeldLeases.find(provider, options);
      if (reentered != null) {
        // As a nested call's CompletionStage does: the lease stays until this result ends too.
        return CompletableFuture.completedFuture(new ReenteredLease(reentered, reentered.retain()));
      }
      // The keys this thread holds are found here: the acquiring thread holds none of them.
      ReenteredKeys keys = options.keys().isEmpty() ? null : ReenteredKeys.find(provider, options);
      if (keys != null && keys.all()) {
        return CompletableFuture.completedFuture(
            obtainReentering(keys, acquirer.now())); // no provider call: nothing blocks
      }
      // A WAIT counts from here: time queued for an acquiring thread is part of its waitTimeout.
      long asked = acquirer.now();
      CompletableFuture<@Nullable Lease> result = new CompletableFuture<>();
      AcquiringThread acquiring = new AcquiringThread();
      result.whenComplete(
          (lease, error) -> {
            if (result.isCancelled()) {
              acquiring.interrupt();
            }
          });
      try {
        executor.execute(
            new EngineThreads.Refusable() {
              @Override
              public void run() {
                acquireOn(result, acquiring, keys, asked);
              }

              @Override
              public void refuse() {
                refused(result, keys, null);
              }
            });
      } catch (RejectedExecutionException closed) {
        refused(result, keys, closed);
      }
      return result;
    }

    /** The engine closed before an acquiring thread took the acquisition up. */
    private static void refused(
        CompletableFuture<@Nullable Lease> result,
        @Nullable ReenteredKeys keys,
        @Nullable Exception cause) {
      if (keys != null) {
        keys.drop();
      }
      result.completeExceptionally(
          new IllegalStateException("This Locksmith is closed; it takes no more locks", cause));
    }

    private void acquireOn(
        CompletableFuture<@Nullable Lease> result,
        AcquiringThread acquiring,
        @Nullable ReenteredKeys keys,
        long asked) {
      if (!acquiring.enter(result)) {
        if (keys != null) {
          keys.drop(); // cancelled before it started
        }
        return;
      }
      try {
        Lease lease = obtainReentering(keys, asked);
        if (!result.complete(lease) && lease != null) {
          ((HeldLease) lease).abandon(); // cancelled meanwhile: nothing runs under it
        }
      } catch (Throwable e) {
        if (keys != null) {
          keys.drop(); // each hold drops once: a no-op where the failed acquisition dropped it
        }
        result.completeExceptionally(e);
      } finally {
        acquiring.leave(result);
      }
    }

    private @Nullable HeldLease obtainReentering(@Nullable ReenteredKeys keys, long asked) {
      return acquirer.obtainHeld(
          options, spec.provider().name(), spec.provider().provider(), true, keys, asked);
    }

    @Override
    public void release(Lease lease) {
      if (lease instanceof ReenteredLease reentered) {
        reentered.close();
      } else {
        LockedCalls.this.release((HeldLease) lease);
      }
    }
  }

  private static LockOptions optionsFor(MethodSpec spec, LockedInvocation invocation) {
    KeyExpression key = spec.key();
    if (key == null) {
      return spec.options();
    }
    List<String> keys =
        key.evaluate(invocation.method(), invocation.arguments(), invocation.targetClass());
    return keys.size() == 1 ? spec.options().withKey(keys.get(0)) : spec.options().withKeys(keys);
  }

  /**
   * Takes an annotated method's lock (every key's, with several) under its busy policy; {@code
   * null} means skipped.
   */
  @Nullable HeldLease obtain(MethodSpec spec, LockOptions options) {
    return acquirer.obtainHeld(options, spec.provider().name(), spec.provider().provider(), true);
  }

  /** Releases an annotated call's lease now, or later when the release deferral takes it. */
  void release(HeldLease lease) {
    boolean deferred;
    try {
      deferred = releaseDeferral.deferRelease(lease, lease::close);
    } catch (RuntimeException e) {
      LOG.warn(
          "The release deferral failed for lock {}; released now: {}",
          LockIdText.quoted(lease.lockId()),
          Causes.oneLine(e));
      listeners.error(lease.event(), e);
      deferred = false;
    }
    if (deferred) {
      HeldLeases.deferred(lease);
    } else {
      lease.close();
    }
  }

  private static Object holdUntilComplete(
      CompletionStage<?> stage, Runnable release, Method method) {
    Class<?> declared = method.getReturnType();
    // Released when the stage completes, on the completing thread: never deferred to a transaction
    // that thread may happen to run.
    if (declared == CompletionStage.class || declared == CompletableFuture.class) {
      // The caller's stage completes after the release, as the method's did: with its value, its
      // own exception (not wrapped in a CompletionException) or its cancellation.
      CompletableFuture<@Nullable Object> released = new CompletableFuture<>();
      stage.whenComplete(
          (value, error) -> {
            try {
              release.run();
            } finally {
              if (error != null) {
                released.completeExceptionally(error);
              } else {
                released.complete(value);
              }
            }
          });
      return released;
    }
    stage.whenComplete((value, error) -> release.run());
    return stage;
  }

  /**
   * Runs a reentered call under the lease its thread already holds. A {@code CompletionStage} it
   * returns holds the lease too, so the lock outlives the outer call until the stage completes.
   */
  private static @Nullable Object proceedHeld(
      ActiveLease lease, LockedInvocation invocation, MethodSpec spec) throws Throwable {
    HeldLeases.push(lease);
    try {
      Object result = invocation.proceed();
      if (spec.returnKind() == ReturnKind.STAGE && result != null) {
        return holdUntilComplete((CompletionStage<?>) result, lease.retain(), spec.method());
      }
      return result;
    } finally {
      HeldLeases.pop(lease);
    }
  }

  /**
   * The thread that runs an asynchronous acquisition, interrupted when its future is cancelled; an
   * interrupt is sent only while the thread still runs that acquisition, never to the pool's next
   * task.
   */
  private static final class AcquiringThread {
    private @Nullable Thread thread;

    /** Takes the current thread as the acquiring one; false when cancelled already. */
    synchronized boolean enter(CompletableFuture<?> result) {
      if (result.isDone()) {
        return false;
      }
      thread = Thread.currentThread();
      return true;
    }

    synchronized void interrupt() {
      Thread running = thread;
      if (running != null) {
        running.interrupt();
      }
    }

    /** Ends the acquisition on this thread, clearing the interrupt its cancel sent. */
    void leave(CompletableFuture<?> result) {
      synchronized (this) {
        thread = null;
      }
      if (result.isCancelled()) {
        Thread.interrupted();
      }
    }
  }
}
