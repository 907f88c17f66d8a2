package dev.locksmith.spring;

import dev.locksmith.core.Lease;
import dev.locksmith.core.Locksmith;
import dev.locksmith.core.integration.LockedInvocation;
import dev.locksmith.core.integration.PreparedCall;
import java.lang.reflect.Method;
import org.jspecify.annotations.Nullable;
import org.reactivestreams.Publisher;
import org.springframework.aop.ProxyMethodInvocation;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * Holds the lock of a method returning {@link Mono} or {@link Flux} from subscription to the
 * terminal signal or cancellation. The lock is taken on the bounded-elastic scheduler because
 * waiting for it blocks; a call skipped under SKIP completes empty. Every subscription runs the
 * method anew under its own lease.
 */
final class ReactiveLocking {
  private ReactiveLocking() {}

  static boolean isReactive(Class<?> returnType) {
    return returnType == Mono.class || returnType == Flux.class;
  }

  static Object invoke(
      Locksmith locksmith, Method method, Class<?> targetClass, ProxyMethodInvocation invocation) {
    if (method.getReturnType() == Mono.class) {
      return Mono.defer(
          () -> {
            Subscription call = new Subscription(locksmith, method, targetClass, invocation);
            return Mono.usingWhen(
                call.acquire(),
                lease -> Mono.from(call.proceed()),
                call::release,
                (lease, error) -> call.release(lease),
                call::release);
          });
    }
    return Flux.defer(
        () -> {
          Subscription call = new Subscription(locksmith, method, targetClass, invocation);
          return Flux.usingWhen(
              call.acquire(),
              lease -> call.proceed(),
              call::release,
              (lease, error) -> call.release(lease),
              call::release);
        });
  }

  /** One subscription: the prepared lock and a fresh copy of the intercepted call. */
  private static final class Subscription {
    private final PreparedCall prepared;
    private final ProxyMethodInvocation invocation;

    Subscription(
        Locksmith locksmith, Method method, Class<?> targetClass, ProxyMethodInvocation original) {
      this.invocation = (ProxyMethodInvocation) original.invocableClone();
      this.prepared =
          locksmith.prepare(
              new LockedInvocation() {
                @Override
                public Method method() {
                  return method;
                }

                @Override
                public Class<?> targetClass() {
                  return targetClass;
                }

                @Override
                public @Nullable Object[] arguments() {
                  return invocation.getArguments();
                }

                @Override
                public @Nullable Object proceed() {
                  throw new UnsupportedOperationException("prepared calls do not proceed");
                }
              });
    }

    Mono<Lease> acquire() {
      // Cancel-safe: a lease granted after the subscriber cancelled is released, not leaked.
      return Mono.fromFuture(
              () -> prepared.acquireAsync(task -> Schedulers.boundedElastic().schedule(task)))
          .doOnDiscard(Lease.class, prepared::release);
    }

    Publisher<?> proceed() {
      try {
        Object result = invocation.proceed();
        return result == null ? Mono.empty() : (Publisher<?>) result;
      } catch (Throwable e) {
        return Mono.error(e);
      }
    }

    Mono<Void> release(Lease lease) {
      // Never on the thread that signalled completion, which may be an event loop.
      return Mono.<Void>fromRunnable(() -> prepared.release(lease))
          .subscribeOn(Schedulers.boundedElastic());
    }
  }
}
