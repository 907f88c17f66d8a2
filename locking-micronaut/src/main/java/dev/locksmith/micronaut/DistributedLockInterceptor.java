package dev.locksmith.micronaut;

import dev.locksmith.annotation.DistributedLock;
import dev.locksmith.core.Locksmith;
import dev.locksmith.core.internal.LockedInvocation;
import dev.locksmith.core.internal.PreparedCall;
import dev.locksmith.core.internal.ReactiveCall;
import dev.locksmith.core.internal.ReactiveResults;
import io.micronaut.aop.InterceptPhase;
import io.micronaut.aop.InterceptedMethod;
import io.micronaut.aop.InterceptorBean;
import io.micronaut.aop.MethodInterceptor;
import io.micronaut.aop.MethodInvocationContext;
import io.micronaut.context.annotation.Requires;
import io.micronaut.core.async.publisher.Publishers;
import io.micronaut.core.convert.ConversionService;
import io.micronaut.inject.ExecutableMethod;
import java.lang.reflect.Method;
import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;
import org.reactivestreams.Publisher;

/**
 * Around advice for {@link DistributedLock}: turns each intercepted call into one call of the core
 * engine. Plain and {@code CompletionStage} results go through {@link Locksmith#invoke}; {@code
 * Publisher} results go through core's {@link ReactiveResults}, which takes the lease when
 * subscribed (off the subscribing thread, since waiting blocks) and releases it on the terminal
 * signal or cancellation.
 *
 * <p>Its {@linkplain #ORDER order} puts it inside {@code @Async} (so the lock is held while the
 * method runs on the executor, not just while it is dispatched) and outside {@code @Transactional}
 * (so the transaction has committed before the lock is released).
 */
@InterceptorBean(DistributedLock.class)
@Requires(condition = OnOffSwitch.LockingEnabled.class)
public final class DistributedLockInterceptor implements MethodInterceptor<Object, Object> {

  /**
   * The interceptor's order, {@value}: between {@link InterceptPhase#ASYNC} (-40, outer) and {@link
   * InterceptPhase#TRANSACTION} (-20, inner).
   */
  public static final int ORDER = -30;

  private final Locksmith locksmith;
  private final ConversionService conversionService;
  private final LockedMethods methods;
  private final ConcurrentHashMap<ExecutableMethod<?, ?>, Method> targets =
      new ConcurrentHashMap<>();

  DistributedLockInterceptor(
      Locksmith locksmith, ConversionService conversionService, LockedMethods methods) {
    this.locksmith = locksmith;
    this.conversionService = conversionService;
    this.methods = methods;
  }

  /** Returns {@link #ORDER}. */
  @Override
  public int getOrder() {
    return ORDER;
  }

  /** Runs the call under its lock, as the method's {@code @DistributedLock} says. */
  @Override
  public @Nullable Object intercept(MethodInvocationContext<Object, Object> context) {
    InterceptedMethod intercepted = InterceptedMethod.of(context, conversionService);
    try {
      Method method = targets.computeIfAbsent(context.getExecutableMethod(), methods::register);
      Call call = new Call(method, targetClass(context), context.getParameterValues(), context);
      return switch (intercepted.resultType()) {
        case SYNCHRONOUS, COMPLETION_STAGE -> locksmith.invoke(call);
        case PUBLISHER -> intercepted.handleResult(publisher(context, locksmith.prepare(call)));
      };
    } catch (Exception e) {
      return intercepted.handleException(e);
    } catch (Error e) {
      throw e;
    } catch (Throwable t) {
      return intercepted.handleException(new java.lang.reflect.UndeclaredThrowableException(t));
    }
  }

  private Publisher<?> publisher(
      MethodInvocationContext<Object, Object> context, PreparedCall prepared) {
    ReactiveCall call = ReactiveCall.of(prepared, () -> proceed(context));
    // Two returns, not a conditional: javac 25 records Mono's and Flux's common supertype
    // (Reactor's CorePublisher) at the join, and loading this class would then need Reactor,
    // which is optional.
    if (context.getReturnType().isSingleResult()) {
      return ReactiveResults.mono(() -> call);
    }
    return ReactiveResults.flux(() -> call);
  }

  private @Nullable Object proceed(MethodInvocationContext<Object, Object> context) {
    Object result = context.proceed(this);
    return result == null
        ? null
        : Publishers.convertPublisher(conversionService, result, Publisher.class);
  }

  private static Class<?> targetClass(MethodInvocationContext<Object, Object> context) {
    Object target = context.getTarget();
    if (target == null) {
      return context.getDeclaringType();
    }
    Class<?> type = target.getClass();
    return io.micronaut.aop.Intercepted.class.isAssignableFrom(type) && type.getSuperclass() != null
        ? type.getSuperclass()
        : type;
  }

  /** One intercepted call as the engine sees it. */
  private record Call(
      Method method,
      Class<?> targetClass,
      @Nullable Object[] arguments,
      MethodInvocationContext<Object, Object> context)
      implements LockedInvocation {
    @Override
    public @Nullable Object proceed() {
      return context.proceed();
    }
  }
}
