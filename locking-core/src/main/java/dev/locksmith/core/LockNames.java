package dev.locksmith.core;

import java.lang.reflect.Method;
import java.util.Arrays;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The lock names the engine's annotated methods resolve to, so that two different methods cannot
 * share a lock by accident: a default name ({@code SimpleClassName.methodName}) is the same for
 * classes of the same simple name in different packages. Two methods may share a name only when
 * both declare it explicitly, or when one overrides or implements the other.
 */
final class LockNames {
  private record Claim(Method method, boolean explicit) {}

  private final ConcurrentHashMap<String, Claim> claims = new ConcurrentHashMap<>();

  /**
   * Records that {@code method} locks under {@code name}.
   *
   * @throws LockConfigurationException when another method already resolved to the same name and
   *     either of them did not declare it
   */
  void claim(String name, Method method, boolean explicit, String where) {
    Claim mine = new Claim(method, explicit);
    Claim earlier = claims.putIfAbsent(name, mine);
    if (earlier == null
        || (earlier.explicit && explicit)
        || sameOperation(earlier.method, method)) {
      return;
    }
    throw new LockConfigurationException(
        where
            + ", attribute name: the lock name '"
            + name
            + "' is also the "
            + (earlier.explicit ? "declared" : "default")
            + " name of "
            + MethodSpecs.describe(earlier.method)
            + ", so the two would share one lock"
            + (explicit && earlier.explicit ? "" : " without saying so")
            + "; give "
            + (explicit ? "the other" : "this one")
            + " an explicit name, or both the same explicit name if they must exclude each other");
  }

  /** The same method, or one that overrides or implements the other. */
  private static boolean sameOperation(Method a, Method b) {
    return a.equals(b)
        || (a.getName().equals(b.getName())
            && Arrays.equals(a.getParameterTypes(), b.getParameterTypes())
            && (a.getDeclaringClass().isAssignableFrom(b.getDeclaringClass())
                || b.getDeclaringClass().isAssignableFrom(a.getDeclaringClass())));
  }
}
