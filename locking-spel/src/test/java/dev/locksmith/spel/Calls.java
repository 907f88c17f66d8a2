package dev.locksmith.spel;

import dev.locksmith.core.Locksmith;
import dev.locksmith.core.internal.LockedInvocation;
import java.lang.reflect.Method;
import java.util.Arrays;
import org.jspecify.annotations.Nullable;

/** Calls an annotated method through the engine, as an interceptor would. */
final class Calls {
  private Calls() {}

  static @Nullable Object call(Locksmith locksmith, Object target, String name, Object... args)
      throws Exception {
    Method method =
        Arrays.stream(target.getClass().getDeclaredMethods())
            .filter(m -> m.getName().equals(name))
            .findFirst()
            .orElseThrow(() -> new IllegalArgumentException("no method " + name));
    method.setAccessible(true);
    try {
      return locksmith.invoke(LockedInvocation.reflective(target, method, args));
    } catch (Exception | Error e) {
      throw e;
    } catch (Throwable t) {
      throw new IllegalStateException(t);
    }
  }
}
