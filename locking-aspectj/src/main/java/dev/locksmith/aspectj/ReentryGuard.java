package dev.locksmith.aspectj;

import java.lang.reflect.Method;
import org.aspectj.lang.ProceedingJoinPoint;
import org.jspecify.annotations.Nullable;

/**
 * Marks, per thread, the execution the aspect is proceeding into, so that a second application of
 * the advice to the same execution (a class woven twice, or the aspect registered twice) proceeds
 * at once instead of handing the call to the engine again: the key is evaluated and the lock taken
 * once.
 *
 * <p>The same execution is recognised by the same method, the same target object and the same
 * argument objects. A nested call from the method's body with exactly these also just proceeds; it
 * runs under the outer lease, as the engine's reentrancy would have it.
 */
final class ReentryGuard {
  private static final ThreadLocal<@Nullable Entry> PROCEEDING = new ThreadLocal<>();

  private ReentryGuard() {}

  /** Whether the aspect on this thread is proceeding into this very execution. */
  static boolean isProceeding(Method method, @Nullable Object target, @Nullable Object[] args) {
    Entry entry = PROCEEDING.get();
    return entry != null && entry.matches(method, target, args);
  }

  /** Proceeds into the execution with the marker set, restoring the previous one afterwards. */
  static @Nullable Object proceed(
      ProceedingJoinPoint call, Method method, @Nullable Object target, @Nullable Object[] args)
      throws Throwable {
    Entry previous = PROCEEDING.get();
    PROCEEDING.set(new Entry(method, target, args));
    try {
      return call.proceed();
    } finally {
      if (previous == null) {
        PROCEEDING.remove();
      } else {
        PROCEEDING.set(previous);
      }
    }
  }

  private record Entry(Method method, @Nullable Object target, @Nullable Object[] args) {

    boolean matches(Method otherMethod, @Nullable Object otherTarget, @Nullable Object[] other) {
      if (otherTarget != target || !otherMethod.equals(method) || other.length != args.length) {
        return false;
      }
      for (int i = 0; i < args.length; i++) {
        if (!sameArgument(args[i], other[i])) {
          return false;
        }
      }
      return true;
    }

    /** Identity, except for boxed primitives, which a second join point boxes anew. */
    private static boolean sameArgument(@Nullable Object a, @Nullable Object b) {
      if (a == b) {
        return true;
      }
      return a != null && isBoxed(a) && a.equals(b);
    }

    private static boolean isBoxed(Object value) {
      return value instanceof Number && value.getClass().getName().startsWith("java.lang.")
          || value instanceof Boolean
          || value instanceof Character;
    }
  }
}
