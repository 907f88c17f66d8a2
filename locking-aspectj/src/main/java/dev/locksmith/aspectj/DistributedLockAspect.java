package dev.locksmith.aspectj;

import dev.locksmith.core.Locksmith;
import dev.locksmith.core.internal.ReactiveCall;
import dev.locksmith.core.internal.ReactiveReturns;
import java.lang.reflect.Method;
import org.aspectj.lang.ProceedingJoinPoint;
import org.aspectj.lang.annotation.Around;
import org.aspectj.lang.annotation.Aspect;
import org.aspectj.lang.annotation.Pointcut;
import org.aspectj.lang.reflect.MethodSignature;
import org.jspecify.annotations.Nullable;

/**
 * Runs every method annotated with {@code @DistributedLock} (directly, or through an annotation
 * that is itself annotated with it) under its lock, by handing the call to the engine of {@link
 * AspectLocksmith}. It matches method execution only, never calls, so each call is locked once,
 * including self-invocations and private and static methods.
 *
 * <p>Compiled by ajc: name this module in {@code aspectLibraries} of the aspectj-maven-plugin, or
 * run with {@code -javaagent:aspectjweaver.jar}, which finds the aspect through this module's
 * {@code META-INF/aop.xml}. It holds no locking logic: keys, busy policy, renewal, reentrancy and
 * release all live in the core engine, and a method returning a Reactor {@code Mono} or {@code
 * Flux} (with {@code reactor-core} on the class path) is held over each subscription by core's
 * {@code ReactiveResults}, as in the Spring and Micronaut integrations.
 */
@Aspect
public class DistributedLockAspect {

  /** Created by AspectJ. */
  public DistributedLockAspect() {}

  /**
   * Execution of a method carrying {@code @DistributedLock} or an annotation meta-annotated with
   * it.
   */
  @Pointcut(
      "execution(@dev.locksmith.annotation.DistributedLock * *(..))"
          + " || execution(@(@dev.locksmith.annotation.DistributedLock *) * *(..))"
          + " || execution(@(@(@dev.locksmith.annotation.DistributedLock *) *) * *(..))")
  void lockedMethod() {}

  /**
   * Runs one locked call through the engine.
   *
   * @param call the method execution
   * @return what the engine returns: the method's result, or the skipped value under SKIP; for a
   *     {@code Mono} or {@code Flux}, one that holds the lock over each subscription
   * @throws Throwable what the method throws, or the engine's lock exceptions
   */
  @Around("lockedMethod()")
  public @Nullable Object lock(ProceedingJoinPoint call) throws Throwable {
    MethodSignature signature = (MethodSignature) call.getSignature();
    Method method = signature.getMethod();
    Object target = call.getTarget();
    @Nullable Object[] args = call.getArgs();
    if (ReentryGuard.isProceeding(method, target, args)) {
      // The same execution advised a second time (woven twice): the outer advice holds the lock.
      return call.proceed();
    }
    Class<?> targetClass = target != null ? target.getClass() : signature.getDeclaringType();
    Locksmith engine = AspectLocksmith.engine();
    if (ReactiveReturns.isMonoOrFlux(method.getReturnType())) {
      // A mistake in the annotation fails the call, as for any other method, not a subscription
      // that may never come; the spec is resolved once and then read from the engine's cache.
      engine.validate(method);
      // Held from subscription to the end of the publisher; each subscription proceeds anew.
      return ReactiveReturns.hold(
          method.getReturnType(),
          () ->
              ReactiveCall.of(
                  engine,
                  method,
                  targetClass,
                  args,
                  () -> ReentryGuard.proceed(call, method, target, args)));
    }
    return engine.invoke(new JoinPointInvocation(call, method, target, targetClass, args));
  }
}
